/**
 * Create or edit an incoming connection: identifier and protocol (fixed once created), authentication mode
 * (OIDC issuer and audience in OIDC mode), browser origins (one a line; AG-UI and MCP only) and calls per minute (empty: the
 * protocol's default). A change takes effect when the environment is next published, and the form says so.
 *
 * Source: spec/platform-service.md § Incoming connection, § Incoming connection authentication,
 * rules 1–7; docs/decisions.md D10 (Connections).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { ChangeConnectionBody, ConnectionAnswer, ConnectionView, CreateConnectionBody } from '../../../../../core/connection/api-views.ts';
import { api } from '../../../api/client.ts';
import { Button, ErrorMessage, SelectField, TextArea, TextField } from '../../../ui/kit.tsx';
import { agentKeys, environmentPath } from '../agents/queries.ts';
import { authLabel, authModesOf, protocolLabel } from './labels.ts';

type Protocol = ConnectionView['protocol'];
type Auth = ConnectionView['auth'];

/** The note every create and edit shows (rule 6). */
export const takesEffectNote = 'Changes to connections take effect when this environment is next published (Publish on the Overview tab), restored or promoted to.';

/**
 * The form: creates a connection when `editing` is absent, else edits it. `onDone` gets the answer (its
 * `token` in bearer mode, to show once).
 */
export function ConnectionForm({ agent, env, editing, onCancel, onDone }: {
  agent: string; env: string; editing?: ConnectionView; onCancel: () => void; onDone: (answer: ConnectionAnswer) => void;
}) {
  const current = editing?.pendingChange ?? editing;
  const [identifier, setIdentifier] = useState(editing?.identifier ?? '');
  const [protocol, setProtocol] = useState<Protocol>(editing?.protocol ?? 'agui');
  const [auth, setAuth] = useState<Auth>((current?.auth as Auth | undefined) ?? 'bearer');
  const [issuer, setIssuer] = useState(current?.oidc?.issuer ?? '');
  const [audience, setAudience] = useState(current?.oidc?.audience ?? '');
  const [origins, setOrigins] = useState((current?.origins ?? []).join('\n'));
  const [perCaller, setPerCaller] = useState(current ? String(current.rate.perCaller) : '');
  const [perEndpoint, setPerEndpoint] = useState(current ? String(current.rate.perEndpoint) : '');
  const save = useSaveConnection({ agent, env, editing, onDone });
  const modes = authModesOf(protocol);
  const effectiveAuth = modes.includes(auth) ? auth : modes[0]!;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const fields = connectionFields({ auth: effectiveAuth, protocol, issuer, audience, origins, perCaller, perEndpoint });
    save.mutate(editing ? fields : { identifier: identifier.trim(), protocol, ...fields });
  };
  return (
    <form className="card connection-form" onSubmit={submit} aria-label={editing ? `Edit connection ${editing.identifier}` : 'New connection'}>
      <h3>{editing ? <>Edit <code>{editing.identifier}</code></> : 'New connection'}</h3>
      <p className="notice" role="note">{takesEffectNote}</p>
      <div className="field-row">
        {editing ? <p className="small">Identifier <code>{editing.identifier}</code> · protocol {protocolLabel[editing.protocol]} (fixed)</p> : (
          <>
            <TextField label="Identifier" hint="Letters, digits, '-' and '_'; triggers name the connection by it." value={identifier} onChange={(e) => setIdentifier(e.target.value)} required />
            <SelectField label="Protocol" options={Object.entries(protocolLabel) as [string, string][]} value={protocol} onChange={(e) => setProtocol(e.target.value as Protocol)} />
          </>
        )}
        <SelectField label="Authentication" options={modes.map((m) => [m, authLabel[m]])} value={effectiveAuth} onChange={(e) => setAuth(e.target.value as Auth)} />
      </div>
      {effectiveAuth === 'oidc' ? (
        <div className="field-row">
          <TextField label="OIDC issuer" placeholder="https://login.example.com" value={issuer} onChange={(e) => setIssuer(e.target.value)} required />
          <TextField label="Audience" value={audience} onChange={(e) => setAudience(e.target.value)} required />
        </div>
      ) : null}
      {effectiveAuth === 'public' ? <p className="small muted">Anyone who knows the URL can call it; keep the calls-per-minute limits low.</p> : null}
      {protocol === 'webhook' ? <p className="small muted">A webhook takes no browser origins: other systems call it, not browser pages.</p>
        : <TextArea label="Browser origins" hint="One a line (e.g. https://app.example.com), or * for any site; empty: no browser page may call it." rows={2} value={origins} onChange={(e) => setOrigins(e.target.value)} />}
      <div className="field-row">
        <TextField label="Calls per minute per caller" hint="Empty: the protocol's default." inputMode="numeric" value={perCaller} onChange={(e) => setPerCaller(e.target.value)} />
        <TextField label="Calls per minute for the endpoint" inputMode="numeric" value={perEndpoint} onChange={(e) => setPerEndpoint(e.target.value)} />
      </div>
      {save.isError ? <ErrorMessage error={save.error} title={editing ? 'The change was not saved' : 'The connection was not created'} /> : null}
      <div className="actions">
        <Button kind="primary" type="submit" busy={save.isPending} disabled={save.isPending}>{editing ? 'Save change' : 'Create connection'}</Button>
        <Button type="button" onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  );
}

/** Create (POST …/connections) or, when `editing`, change (PATCH …/connections/:identifier); then `onDone`. */
function useSaveConnection({ agent, env, editing, onDone }: {
  agent: string; env: string; editing?: ConnectionView; onDone: (answer: ConnectionAnswer) => void;
}) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateConnectionBody | ChangeConnectionBody) => editing
      ? api<ConnectionAnswer>(environmentPath(agent, env, `/connections/${encodeURIComponent(editing.identifier)}`), { method: 'PATCH', body })
      : api<ConnectionAnswer>(environmentPath(agent, env, '/connections'), { method: 'POST', body }),
    onSuccess: async (answer) => {
      await client.invalidateQueries({ queryKey: agentKeys.connections(agent, env) });
      onDone(answer);
    },
  });
}

/** The form's texts as they are typed. */
interface ConnectionTexts { auth: Auth; protocol: Protocol; issuer: string; audience: string; origins: string; perCaller: string; perEndpoint: string }

/**
 * The body's fields but identifier and protocol: OIDC issuer and audience in OIDC mode only, origins one a line (none
 * for a webhook), and the calls per minute when either is given (the other takes the same).
 */
function connectionFields({ auth, protocol, issuer, audience, origins, perCaller, perEndpoint }: ConnectionTexts) {
  const rate = perCaller.trim() || perEndpoint.trim() ? { rate: { perCaller: Number(perCaller || perEndpoint), perEndpoint: Number(perEndpoint || perCaller) } } : {};
  return {
    auth,
    ...(auth === 'oidc' ? { oidc: { issuer: issuer.trim(), audience: audience.trim() } } : {}),
    origins: protocol === 'webhook' ? [] : origins.split('\n').map((o) => o.trim()).filter(Boolean),
    ...rate,
  };
}
