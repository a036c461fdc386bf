/**
 * Semantic projects: the list (paged), Create (slug, name, and the organization when the member is in several),
 * and Import a project directory
 * (ImportProject.tsx).
 *
 * Source: spec/semantic-query-service.md § Resources and their fields (project); docs/decisions.md D9 (Projects).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import type { CreateProjectBody, ProjectView } from '../../../../core/semantic/api/projects.ts';
import { api } from '../../api/client.ts';
import { Button, ErrorMessage, Loading, PageHeader, RelativeTime, TextField, usePaged } from '../../ui/kit.tsx';
import { ImportProject } from './ImportProject.tsx';
import { useOrganizationChoice } from './OrganizationChoice.tsx';
import { keys, useProjects } from './queries.ts';

/** /projects */
export function ProjectsPage() {
  const projects = useProjects();
  const [open, setOpen] = useState<'none' | 'create' | 'import'>('none');
  const { rows, pager } = usePaged(projects.data ?? []);
  return (
    <section>
      <PageHeader title="Semantic projects">
        <Button kind="primary" onClick={() => setOpen(open === 'create' ? 'none' : 'create')} aria-expanded={open === 'create'}>Create project</Button>
        <Button onClick={() => setOpen(open === 'import' ? 'none' : 'import')} aria-expanded={open === 'import'}>Import project directory</Button>
      </PageHeader>
      <p className="muted">Each project serves its semantic models to AI agents over MCP: a test endpoint for the latest saved files and a production endpoint for the last publish.</p>
      {open === 'create' ? <CreateProject onDone={() => setOpen('none')} /> : null}
      {open === 'import' ? <ImportProject onDone={() => setOpen('none')} /> : null}
      {projects.isPending ? <Loading what="Loading projects" /> : projects.isError ? <ErrorMessage error={projects.error} retry={() => void projects.refetch()} /> : (
        rows.length === 0 ? <p className="empty">No projects yet. Create one, or import a directory of model files (<code>models/*.yaml</code>) and data files.</p> : (
          <>
            <div className="table-wrap">
              <table>
                <thead><tr><th scope="col">Project</th><th scope="col">Slug</th><th scope="col">Saved revision</th><th scope="col">Published</th></tr></thead>
                <tbody>{rows.map((p) => <ProjectRow key={p.id} project={p} />)}</tbody>
              </table>
            </div>
            {pager}
          </>
        )
      )}
    </section>
  );
}

function ProjectRow({ project }: { project: ProjectView }) {
  return (
    <tr>
      <td><Link href={`/projects/${project.slug}/editor`}>{project.name}</Link></td>
      <td><code>{project.slug}</code></td>
      <td>{project.sourceRevision}</td>
      <td>{project.publishedRevision === null ? <span className="muted">not yet</span> : <>revision {project.publishedRevision}, <RelativeTime at={project.publishedAt} /></>}</td>
    </tr>
  );
}

function CreateProject({ onDone }: { onDone: () => void }) {
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  const org = useOrganizationChoice();
  const create = useMutation({
    mutationFn: (body: CreateProjectBody) => api<ProjectView>('/api/semantic/projects', { body }),
    onSuccess: (project) => {
      void queries.invalidateQueries({ queryKey: keys.projects });
      onDone();
      navigate(`/projects/${project.slug}/editor`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const orgId = org.orgId ? { orgId: org.orgId } : {};
    create.mutate({ slug: slug.trim(), ...orgId, ...(name.trim() ? { name: name.trim() } : {}) });
  };
  return (
    <form className="card" onSubmit={submit} aria-label="Create project">
      <h2>Create project</h2>
      <TextField label="Slug" value={slug} onChange={(e) => setSlug(e.target.value)} required pattern="[a-z0-9][a-z0-9\-]{0,62}" hint="Lower-case letters, digits and dashes; it appears in the MCP endpoint's URL." autoFocus />
      <TextField label="Name (optional)" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
      {org.field}
      {create.isError ? <ErrorMessage error={create.error} title="The project was not created" /> : null}
      <div className="actions">
        <Button kind="primary" type="submit" busy={create.isPending}>Create</Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
    </form>
  );
}
