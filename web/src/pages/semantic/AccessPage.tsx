/**
 * MCP Access: the project's endpoints (production and test, each with a copy button), its tokens (name,
 * prefix, scopes, expiry, Last Used, Events (30d), state; Revoke with a confirm step), and Create token,
 * after which the raw token is shown once with ready-to-paste client configurations.
 *
 * Source: spec/semantic-query-service.md § Endpoints, § Authentication, § Resources and their fields
 * (access token); docs/decisions.md D9 (MCP Access).
 */
import { useState } from 'react';
import type { CreatedTokenView } from '../../../../core/semantic/api/access.ts';
import { Button, ErrorMessage, Loading } from '../../ui/kit.tsx';
import { CreateToken } from './access/CreateToken.tsx';
import { Endpoints } from './access/Endpoints.tsx';
import { NewTokenPanel } from './access/NewTokenPanel.tsx';
import { TokensTable } from './access/TokensTable.tsx';
import { useTokens } from './access/queries.ts';
import { useProject } from './queries.ts';
import './access/access.css';

/** /projects/<slug>/access */
export function AccessPage({ slug }: { slug: string }) {
  const project = useProject(slug);
  const tokens = useTokens(slug);
  const [creating, setCreating] = useState(false);
  /** The token just created: held only while its panel is open. */
  const [created, setCreated] = useState<CreatedTokenView | null>(null);
  const published = project.data?.publishedRevision != null;
  return (
    <div>
      <Endpoints slug={slug} published={published} />
      {created ? <NewTokenPanel slug={slug} created={created} published={published} onClose={() => setCreated(null)} /> : null}
      <div className="page-header">
        <h2>Tokens</h2>
        <div className="actions">
          <Button kind="primary" onClick={() => { setCreating(!creating); setCreated(null); }} aria-expanded={creating}>Create token</Button>
        </div>
      </div>
      {creating ? (
        project.isPending ? <Loading what="Loading the models" /> : project.isError ? <ErrorMessage error={project.error} retry={() => void project.refetch()} /> : (
          <CreateToken slug={slug} models={project.data.models.map(modelName)} onCancel={() => setCreating(false)} onCreated={(c) => { setCreating(false); setCreated(c); }} />
        )
      ) : null}
      {tokens.isPending ? <Loading what="Loading tokens" /> : tokens.isError ? <ErrorMessage error={tokens.error} retry={() => void tokens.refetch()} /> : (
        tokens.data.length === 0
          ? <p className="empty">No tokens yet. Create one to let an MCP client reach this project’s models.</p>
          : <TokensTable slug={slug} tokens={tokens.data} />
      )}
    </div>
  );
}

/** A model's name from its saved file name (`flights.yaml` → `flights`). */
function modelName(file: string): string {
  return file.replace(/\.ya?ml$/i, '');
}
