/**
 * The raw value of a token just created, shown this once with a copy button and a warning, and the
 * ready-to-paste client configurations (mcpServers JSON, Claude Code, curl) for the production or test
 * endpoint. Closing the panel forgets the token: the page keeps it only in this component's props.
 *
 * Source: spec/semantic-query-service.md § Authentication (client configuration shape); docs/decisions.md D9 (MCP
 * Access: the raw token shown once, with a copy button and a ready-to-paste client configuration).
 */
import { useState } from 'react';
import type { CreatedTokenView } from '../../../../../core/semantic/api/access.ts';
import { Button, CopyButton } from '../../../ui/kit.tsx';
import { clientConfigurations, endpointsOf, type ClientConfiguration } from './client-config.ts';

/** The panel for `created` of project `slug`; `published` picks the production endpoint by default; `onClose` forgets the token. */
export function NewTokenPanel({ slug, created, published, onClose }: { slug: string; created: CreatedTokenView; published: boolean; onClose: () => void }) {
  const [plane, setPlane] = useState<'production' | 'test'>(published ? 'production' : 'test');
  const [client, setClient] = useState<ClientConfiguration['id']>('json');
  const url = endpointsOf(window.location.origin, slug)[plane];
  const configurations = clientConfigurations(slug, url, created.token);
  const shown = configurations.find((c) => c.id === client) ?? configurations[0]!;
  return (
    <section className="card new-token" aria-labelledby="new-token-heading">
      <h2 id="new-token-heading">Token “{created.name}” created</h2>
      <p className="warning" role="status"><strong>Copy it now.</strong> This is the only time the token is shown: cairn keeps only a digest of it. If it is lost, revoke it and create another.</p>
      <code className="token-value" aria-label="New token">{created.token}</code>
      <div className="actions"><CopyButton text={created.token} label="Copy token" /></div>
      <p className="small muted">
        Scopes: {created.models.join(', ')}. {created.expiresAt ? <>Expires {new Date(created.expiresAt).toLocaleString()}.</> : 'No expiry.'}
      </p>

      <h3>Client configuration</h3>
      <p className="segmented-label" id="plane-label">Endpoint</p>
      <div className="segmented" role="group" aria-labelledby="plane-label">
        <Button aria-pressed={plane === 'production'} onClick={() => setPlane('production')}>Production</Button>
        <Button aria-pressed={plane === 'test'} onClick={() => setPlane('test')}>Test</Button>
      </div>
      {plane === 'production' && !published ? <p className="small muted">Nothing is published yet: production answers once you publish from the Editor.</p> : null}
      <p className="segmented-label" id="client-label">Client</p>
      <div className="segmented" role="group" aria-labelledby="client-label">
        {configurations.map((c) => <Button key={c.id} aria-pressed={client === c.id} onClick={() => setClient(c.id)}>{c.label}</Button>)}
      </div>
      <pre className="config-pre" aria-label="Client configuration" tabIndex={0}>{shown.text}</pre>
      <div className="actions">
        <CopyButton text={shown.text} label="Copy configuration" />
        <Button kind="primary" onClick={onClose}>Close and forget the token</Button>
      </div>
    </section>
  );
}
