/**
 * One project's pages under /projects/<slug>/<tab>: its name and endpoints, and tabs for the editor, the
 * playground, MCP Access, Monitoring and improvement requests. Also the spec's monitoring address
 * /<projectId>/monitoring, which is sent on to the project's Monitoring tab.
 *
 * Source: spec/semantic-query-service.md § What the service does (2, 5), § Endpoints; docs/decisions.md D9.
 */
import { lazy, Suspense, type ComponentType } from 'react';
import { Link, Redirect } from 'wouter';
import { ErrorMessage, Loading } from '../../ui/kit.tsx';
import { useProject, useProjects } from './queries.ts';

// Each tab is its own chunk, loaded when first opened: the MCP SDK (playground) and uPlot (monitoring) stay
// out of the pages that do not use them.
const EditorPage = lazy(() => import('./EditorPage.tsx').then((m) => ({ default: m.EditorPage })));
const PlaygroundPage = lazy(() => import('./PlaygroundPage.tsx').then((m) => ({ default: m.PlaygroundPage })));
const AccessPage = lazy(() => import('./AccessPage.tsx').then((m) => ({ default: m.AccessPage })));
const MonitoringPage = lazy(() => import('./MonitoringPage.tsx').then((m) => ({ default: m.MonitoringPage })));
const ImprovementsPage = lazy(() => import('./ImprovementsPage.tsx').then((m) => ({ default: m.ImprovementsPage })));

/** The tabs, in order: path segment, label, page. */
const tabs: [string, string, ComponentType<{ slug: string }>][] = [
  ['editor', 'Editor', EditorPage],
  ['playground', 'Playground', PlaygroundPage],
  ['access', 'MCP Access', AccessPage],
  ['monitoring', 'Monitoring', MonitoringPage],
  ['improvements', 'Improvement requests', ImprovementsPage],
];

/** /projects/<slug>/<tab> */
export function ProjectLayout({ slug, tab }: { slug: string; tab?: string }) {
  const project = useProject(slug);
  const current = tabs.find(([path]) => path === tab);
  if (!current) return <Redirect to={`/projects/${slug}/editor`} replace />;
  const [, label, Page] = current;
  return (
    <section>
      <p className="crumbs"><Link href="/projects">Semantic projects</Link> / <span>{project.data?.name ?? slug}</span></p>
      {project.isPending ? <Loading what="Loading the project" /> : project.isError ? <ErrorMessage error={project.error} retry={() => void project.refetch()} /> : (
        <>
          <div className="page-header">
            <h1>{project.data.name} <span className="muted small">· {label}</span></h1>
          </div>
          <nav className="tabs" aria-label="Project pages">
            {tabs.map(([path, text]) => <Link key={path} href={`/projects/${slug}/${path}`} aria-current={path === tab ? 'page' : undefined} className={path === tab ? 'tab active' : 'tab'}>{text}</Link>)}
          </nav>
          <Suspense fallback={<Loading what={`Loading ${label}`} />}><Page slug={slug} /></Suspense>
        </>
      )}
    </section>
  );
}

/** /<projectId>/monitoring → /projects/<slug>/monitoring */
export function ProjectIdRedirect({ projectId }: { projectId: string }) {
  const projects = useProjects();
  if (projects.isPending) return <Loading what="Finding the project" />;
  if (projects.isError) return <ErrorMessage error={projects.error} retry={() => void projects.refetch()} />;
  const found = projects.data.find((p) => p.id === projectId || p.slug === projectId);
  if (!found) return <section><h1>Project not found</h1><p>No project has the id {projectId}.</p><Link href="/projects">See every project</Link></section>;
  return <Redirect to={`/projects/${found.slug}/monitoring`} replace />;
}
