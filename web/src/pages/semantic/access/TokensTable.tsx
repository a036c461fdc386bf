/**
 * The tokens of a project: name, prefix, scopes, expiry, Last Used (relative, absolute on hover),
 * Events (30d), state, and Revoke with a confirm step.
 *
 * Source: spec/semantic-query-service.md § Resources and their fields (access token); docs/decisions.md D9 (MCP
 * Access).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { RevokedTokenView, TokenView } from '../../../../../core/semantic/api/access.ts';
import { api, projectPath } from '../../../api/client.ts';
import { Button, ErrorMessage, RelativeTime, usePaged } from '../../../ui/kit.tsx';
import { accessKeys } from './queries.ts';

/** The table of `tokens` (paged) of project `slug`. */
export function TokensTable({ slug, tokens }: { slug: string; tokens: TokenView[] }) {
  const { rows, pager } = usePaged(tokens);
  return (
    <>
      <div className="table-wrap">
        <table className="stack-table">
          <thead>
            <tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Scopes</th><th scope="col">Expires</th><th scope="col">Last Used</th><th scope="col">Events (30d)</th><th scope="col">State</th><th scope="col"><span className="muted">Actions</span></th></tr>
          </thead>
          <tbody>{rows.map((t) => <TokenRow key={t.id} slug={slug} token={t} />)}</tbody>
        </table>
      </div>
      {pager}
    </>
  );
}

const stateBadge: Record<TokenView['state'], string> = { active: 'badge badge-ok', expired: 'badge badge-warn', revoked: 'badge badge-error' };

function TokenRow({ slug, token }: { slug: string; token: TokenView }) {
  return (
    <tr>
      <td data-label="Name">{token.name}</td>
      <td data-label="Prefix"><code>{token.displayPrefix}…</code></td>
      <td data-label="Scopes"><span className="scope-list">{token.models.map((m) => <code key={m}>{m}</code>)}</span></td>
      <td data-label="Expires">{token.expiresAt ? <time dateTime={token.expiresAt} title={new Date(token.expiresAt).toLocaleString()}>{new Date(token.expiresAt).toLocaleDateString()}</time> : <span className="muted">never</span>}</td>
      <td data-label="Last Used"><RelativeTime at={token.lastUsedAt} /></td>
      <td data-label="Events (30d)">{token.events30d}</td>
      <td data-label="State"><span className={stateBadge[token.state]}>{token.state}</span></td>
      <td data-label="Actions">{token.state === 'revoked' ? <span className="muted small">revoked <RelativeTime at={token.revokedAt} /></span> : <RevokeToken slug={slug} token={token} />}</td>
    </tr>
  );
}

/** Revoke, then "Revoke token" to confirm (or Cancel). */
function RevokeToken({ slug, token }: { slug: string; token: TokenView }) {
  const queries = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const revoke = useMutation({
    mutationFn: () => api<RevokedTokenView>(projectPath(slug, `/tokens/${encodeURIComponent(token.id)}`), { method: 'DELETE' }),
    onSuccess: () => { setConfirming(false); void queries.invalidateQueries({ queryKey: accessKeys.tokens(slug) }); },
  });
  if (!confirming) return <Button kind="danger" onClick={() => setConfirming(true)}>Revoke</Button>;
  return (
    <div>
      <p className="small" style={{ margin: '0 0 0.3rem' }}>Clients using <strong>{token.name}</strong> stop working at once.</p>
      <div className="row-actions">
        <Button kind="danger" busy={revoke.isPending} onClick={() => revoke.mutate()} autoFocus>Revoke token</Button>
        <Button onClick={() => { setConfirming(false); revoke.reset(); }}>Cancel</Button>
      </div>
      {revoke.isError ? <ErrorMessage error={revoke.error} title="The token was not revoked" /> : null}
    </div>
  );
}
