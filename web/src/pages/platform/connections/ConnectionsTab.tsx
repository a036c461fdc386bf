/**
 * An environment's Connections tab: every incoming connection with its protocol, authentication mode,
 * origins, calls-per-minute limits and status (Serving with the count of deployments naming it / Not used /
 * Error with the deployment's message, and Retry now); create and edit (taking effect on publish, as the
 * page says); Regenerate token (the new token shown once, in force at once); copy-paste examples per
 * protocol (an AG-UI HttpAgent snippet, an MCP client configuration, a curl for a webhook).
 *
 * Source: spec/platform-service.md § Incoming connection, § Incoming connection authentication,
 * rules 1–7, § Trigger declarations, § Errors; docs/decisions.md D10 (Connections).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ConnectionAnswer, ConnectionView } from '../../../../../core/connection/api-views.ts';
import { api } from '../../../api/client.ts';
import { Button, CopyButton, ErrorMessage, Loading, usePaged } from '../../../ui/kit.tsx';
import { agentKeys, environmentPath } from '../agents/queries.ts';
import { ConnectionForm, takesEffectNote } from './ConnectionForm.tsx';
import { authLabel, exampleOf, protocolLabel } from './labels.ts';
import { useConnections } from './queries.ts';
import { TokenPanel } from './TokenPanel.tsx';

type Shown = { answer: ConnectionAnswer & { token: string }; regenerated: boolean };

/** The tab for `env` of `agent`. */
export function ConnectionsTab({ agent, env }: { agent: string; env: string }) {
  const connections = useConnections(agent, env);
  const [form, setForm] = useState<{ editing?: ConnectionView } | null>(null);
  /** The token just made: held only while its panel is open. */
  const [shown, setShown] = useState<Shown | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [example, setExample] = useState<string | null>(null);
  const list = connections.data ?? [];
  const { rows, pager } = usePaged(list);
  const done = (answer: ConnectionAnswer, what: string) => {
    setForm(null);
    setSaved(`${what}. ${takesEffectNote}`);
    if (answer.token) setShown({ answer: { ...answer, token: answer.token }, regenerated: false });
  };
  const exampleConnection = list.find((c) => c.identifier === example);
  return (
    <div>
      <div className="page-header">
        <h2>Connections</h2>
        <div className="actions">
          <Button kind="primary" onClick={() => { setForm(form && !form.editing ? null : {}); setShown(null); setSaved(null); }} aria-expanded={form !== null && !form.editing}>New connection</Button>
        </div>
      </div>
      <p className="small muted">Incoming connections are the endpoints callers reach: AG-UI for chat front ends, MCP for tool clients, webhooks for other systems. A trigger of a published workflow names the connection it serves on. {takesEffectNote}</p>
      {saved ? <p className="notice" role="status">{saved}</p> : null}
      {shown ? <TokenPanel answer={shown.answer} regenerated={shown.regenerated} onClose={() => setShown(null)} /> : null}
      {form ? <ConnectionForm key={form.editing?.identifier ?? 'new'} agent={agent} env={env} editing={form.editing} onCancel={() => setForm(null)}
        onDone={(answer) => done(answer, form.editing ? `Connection “${answer.connection.identifier}” changed` : `Connection “${answer.connection.identifier}” created`)} /> : null}
      {connections.isPending ? <Loading what="Loading connections" /> : connections.isError ? <ErrorMessage error={connections.error} retry={() => void connections.refetch()} /> : (
        list.length === 0 ? <p className="empty">No connections yet. Create one, then name it in a trigger and publish.</p> : (
          <>
            <div className="table-wrap">
              <table className="stack-table connections-table">
                <thead><tr><th scope="col">Connection</th><th scope="col">Protocol</th><th scope="col">Authentication</th><th scope="col">Origins</th><th scope="col">Limits</th><th scope="col">Status</th><th scope="col"><span className="muted">Actions</span></th></tr></thead>
                <tbody>
                  {rows.map((c) => (
                    <ConnectionRow key={c.identifier} agent={agent} env={env} connection={c}
                      onEdit={() => { setForm({ editing: c }); setShown(null); setSaved(null); }}
                      onExample={() => setExample(example === c.identifier ? null : c.identifier)} exampleOpen={example === c.identifier}
                      onToken={(answer) => { setShown({ answer, regenerated: true }); setSaved(null); }} />
                  ))}
                </tbody>
              </table>
            </div>
            {pager}
          </>
        )
      )}
      {exampleConnection ? <Examples connection={exampleConnection} onClose={() => setExample(null)} /> : null}
    </div>
  );
}

function ConnectionRow({ agent, env, connection: c, onEdit, onExample, exampleOpen, onToken }: {
  agent: string; env: string; connection: ConnectionView; onEdit: () => void; onExample: () => void; exampleOpen: boolean;
  onToken: (answer: ConnectionAnswer & { token: string }) => void;
}) {
  const client = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  const regenerate = useMutation({
    mutationFn: () => api<ConnectionAnswer>(environmentPath(agent, env, `/connections/${encodeURIComponent(c.identifier)}/regenerate-token`), { method: 'POST' }),
    onSuccess: async (answer) => {
      setConfirm(false);
      await client.invalidateQueries({ queryKey: agentKeys.connections(agent, env) });
      if (answer.token) onToken({ ...answer, token: answer.token });
    },
  });
  return (
    <tr>
      <td data-label="Connection"><div><strong>{c.identifier}</strong><span className="conn-url small muted"><code>{c.url}</code></span></div></td>
      <td data-label="Protocol">{protocolLabel[c.protocol]}</td>
      <td data-label="Authentication"><div>
        {authLabel[c.auth]}{c.auth === 'oidc' && c.oidc ? <span className="small muted"> ({c.oidc.issuer})</span> : null}
        {c.pendingChange ? <PendingChange pending={c.pendingChange} /> : null}
      </div></td>
      <td data-label="Origins">{c.origins.length ? <div className="chips">{c.origins.map((o) => <code key={o} className="chip">{o}</code>)}</div> : <span className="muted">none</span>}</td>
      <td data-label="Limits"><div><span className="nowrap">{c.rate.perCaller}/min per caller</span>, <span className="nowrap">{c.rate.perEndpoint}/min in all</span></div></td>
      <td data-label="Status"><ConnectionStatus agent={agent} env={env} connection={c} /></td>
      <td data-label="Actions"><div>
        <div className="row-actions">
          <Button onClick={onEdit}>Edit</Button>
          <Button onClick={onExample} aria-expanded={exampleOpen}>Examples</Button>
          {c.auth === 'bearer' ? (confirm ? (
            <>
              <Button kind="danger" onClick={() => regenerate.mutate()} busy={regenerate.isPending} disabled={regenerate.isPending}>Regenerate now</Button>
              <Button onClick={() => setConfirm(false)}>Cancel</Button>
            </>
          ) : <Button onClick={() => setConfirm(true)}>Regenerate token</Button>) : null}
        </div>
        {confirm ? <p className="small">The current token of <strong>{c.identifier}</strong> stops working at once.</p> : null}
        {regenerate.isError ? <ErrorMessage error={regenerate.error} title="The token was not regenerated" /> : null}
      </div></td>
    </tr>
  );
}

/** An edit waiting for the next publish: what it changes to. */
function PendingChange({ pending }: { pending: NonNullable<ConnectionView['pendingChange']> }) {
  const auth = authLabel[pending.auth as ConnectionView['auth']] ?? pending.auth;
  return (
    <span className="pending-change">
      <strong>Pending change</strong> (takes effect on the next publish): {auth}; origins {pending.origins.length ? pending.origins.join(', ') : 'none'};
      {' '}{pending.rate.perCaller}/min per caller, {pending.rate.perEndpoint}/min in all.
    </span>
  );
}

/** Serving (n) / Not used / Error with the message and Retry now. */
function ConnectionStatus({ agent, env, connection: c }: { agent: string; env: string; connection: ConnectionView }) {
  const client = useQueryClient();
  const retry = useMutation({
    mutationFn: () => api(environmentPath(agent, env, '/deployments/retry'), { method: 'POST' }),
    onSuccess: () => client.invalidateQueries({ queryKey: agentKeys.connections(agent, env) }),
  });
  if (c.status === 'serving') return <span className="badge badge-ok">Serving ({c.servingCount})</span>;
  if (c.status === 'not_used') return <span className="badge" title="No trigger of the published build names this connection">Not used</span>;
  return (
    <div>
      <span className="badge badge-error">Error</span>
      {c.statusMessage ? <span className="status-message">{c.statusMessage}</span> : null}
      <Button onClick={() => retry.mutate()} busy={retry.isPending} disabled={retry.isPending}>Retry now</Button>
      {retry.isSuccess ? <span className="small muted"> Retry asked.</span> : null}
      {retry.isError ? <ErrorMessage error={retry.error} title="Retry was not queued" /> : null}
    </div>
  );
}

/** Copy-paste examples of one connection (placeholders where a credential goes). */
function Examples({ connection, onClose }: { connection: ConnectionView; onClose: () => void }) {
  const example = exampleOf(connection);
  return (
    <section className="card examples" aria-labelledby="examples-heading">
      <h3 id="examples-heading">Examples for <code>{connection.identifier}</code>: {example.title}</h3>
      <pre className="config-pre" tabIndex={0} aria-label={example.title}>{example.text}</pre>
      <div className="actions">
        <CopyButton text={example.text} label="Copy example" />
        <Button onClick={onClose}>Close examples</Button>
      </div>
    </section>
  );
}
