/**
 * The two MCP endpoints of a project, each with a copy button: production (the published build) and
 * test (the saved source files).
 *
 * Source: spec/semantic-query-service.md § Endpoints; docs/decisions.md D9 (MCP Access).
 */
import { CopyButton } from '../../../ui/kit.tsx';
import { endpointsOf } from './client-config.ts';

/** The endpoint list of project `slug` on this origin; `published` says whether production serves anything yet. */
export function Endpoints({ slug, published }: { slug: string; published: boolean }) {
  const { production, test } = endpointsOf(window.location.origin, slug);
  return (
    <section aria-labelledby="endpoints-heading">
      <h2 id="endpoints-heading">Endpoints</h2>
      <ul className="endpoint-list">
        <li>
          <span className="endpoint-name">Production</span>
          <code className="endpoint-url">{production}</code>
          <CopyButton text={production} label="Copy production URL" />
        </li>
        <li>
          <span className="endpoint-name">Test</span>
          <code className="endpoint-url">{test}</code>
          <CopyButton text={test} label="Copy test URL" />
        </li>
      </ul>
      <p className="muted small">
        Production serves the last published build{published ? '' : ' (nothing is published yet: publish from the Editor, or use the test endpoint)'}; test serves the latest saved files.
        Both take the same tokens, sent as <code>Authorization: Bearer &lt;token&gt;</code>.
      </p>
    </section>
  );
}
