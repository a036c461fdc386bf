/**
 * The Collections tab of /members/<org>: the tool collections the deployment offers, each with the organization's
 * connection of it (Connected by whom and when, Reconnect needed and why, Uses the deployment's token, or Not
 * connected). Any member reads it; with organization:manage (`canManage` of the list):
 * - a token collection takes the organization's own token (a password field; the token is never shown back), and
 *   Disconnect removes it;
 * - an OAuth collection shows the app that signs in for it (its reach note, its page, who signs in, the other
 *   collections it serves) and Connect / Reconnect, which sends the browser to the provider; the provider's callback
 *   comes back here with `?finish=<state>&key=<key>&collection=<collection>`, which this page finishes as the
 *   signed-in member (only the member who started it can), or `?connect_error=<code>&collection=<collection>`; the
 *   outcome is said once in a notice (the query is then removed, so a reload does not say it again).
 * Disconnect asks first (the organization's agents lose access at once).
 *
 * Source: spec/platform-service.md § Rules 15, 17, § Endpoints (GET /api/oauth2/callback); docs/decisions.md D22 § 4.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { CollectionView } from '../../../../../core/collection/connections.ts';
import type { OrganizationDetail } from '../../../../../core/org/api-views.ts';
import { Button, ErrorMessage, Loading, TextField } from '../../../ui/kit.tsx';
import { ApiError } from '../../../api/client.ts';
import { useCollections, useDisconnect, useFinishConnect, useSaveToken, useStartConnect } from './collection-queries.ts';

/** What the provider's callback said, from the page's query. */
export type ConnectOutcome =
  | { kind: 'connected'; collection: string }
  | { kind: 'failed'; code: string; collection?: string }
  | { kind: 'finish'; state: string; key: string; collection: string };

/**
 * The outcome named by `search` (`?finish=…&key=…&collection=…`: this page finishes the sign-in;
 * `?connect_error=…&collection=…`; `?connected=…`), or undefined.
 */
export function connectOutcomeOf(search: string): ConnectOutcome | undefined {
  const query = new URLSearchParams(search);
  const [state, key, collection] = [query.get('finish'), query.get('key'), query.get('collection')];
  if (state && key && collection) return { kind: 'finish', state, key, collection };
  const code = query.get('connect_error');
  if (code) return { kind: 'failed', code, ...(query.get('collection') ? { collection: query.get('collection')! } : {}) };
  const connected = query.get('connected');
  return connected ? { kind: 'connected', collection: connected } : undefined;
}

/** One sentence per callback error code. */
export function connectErrorText(code: string): string {
  switch (code) {
    case 'oauth_denied': return 'The sign-in was refused at the provider.';
    case 'oauth_connect_unknown': return 'That sign-in expired, was already used or was started by someone else; connect again.';
    case 'oauth_app_changed': return 'The app changed while you were signing in; connect again.';
    default: return 'The provider could not complete the sign-in; try again.';
  }
}

/**
 * The callback's outcome of this page load, read once from the address; the query is then removed from the
 * address (the outcome stays on screen), so a reload does not repeat it.
 */
export function useConnectOutcome(): ConnectOutcome | undefined {
  const [outcome] = useState(() => connectOutcomeOf(window.location.search));
  useEffect(() => {
    if (outcome) window.history.replaceState(window.history.state, '', window.location.pathname + window.location.hash);
  }, [outcome]);
  return outcome;
}

/** The notice of a callback's outcome: a success, or what went wrong in words with its code. */
export function ConnectNotice({ outcome }: { outcome: ConnectOutcome }) {
  if (outcome.kind === 'finish') return <p className="notice" role="status">Finishing the sign-in to {outcome.collection}…</p>;
  if (outcome.kind === 'connected') return <p className="notice notice-ok" role="status">Connected {outcome.collection}.</p>;
  return (
    <div className="error-box" role="alert">
      <strong>{outcome.collection ? `${outcome.collection} was not connected` : 'The collection was not connected'}</strong>
      <p>{connectErrorText(outcome.code)}</p>
      <p className="muted small">code: <code className="break">{outcome.code}</code></p>
    </div>
  );
}

/** The collections of `org` and its connection of each. */
export function CollectionsTab({ org }: { org: OrganizationDetail; manage: boolean }) {
  const list = useCollections(org.id);
  const outcome = useFinishedOutcome(org.id, useConnectOutcome());
  return (
    <section aria-labelledby="collections-heading">
      <h2 id="collections-heading">Collections</h2>
      <p className="muted">Tool collections your organization's agents may use. An agent is offered a collection only once your organization connects it.</p>
      {outcome ? <ConnectNotice outcome={outcome} /> : null}
      {list.isPending ? <Loading what="Loading collections" /> : list.isError ? <ErrorMessage error={list.error} retry={() => void list.refetch()} /> : (
        <>
          {list.data.canManage ? null : <p className="notice">An Organization Administrator connects collections.</p>}
          {list.data.collections.length === 0 ? <p className="empty">This deployment offers no tool collections.</p> : (
            <div className="collection-grid">
              {list.data.collections.map((c) => <CollectionCard key={c.id} org={org.id} collection={c} manage={list.data.canManage} />)}
            </div>
          )}
        </>
      )}
    </section>
  );
}

/**
 * A callback's answer is finished here, as the signed-in member, with the key only this browser holds (once per
 * page load); the outcome then says Connected, or why not.
 */
function useFinishedOutcome(org: string, outcome: ConnectOutcome | undefined): ConnectOutcome | undefined {
  const finish = useFinishConnect(org);
  // A ref, not state: a finish is single use, and an effect run twice (React's StrictMode) must send it once.
  const started = useRef(false);
  useEffect(() => {
    if (outcome?.kind !== 'finish' || started.current) return;
    started.current = true;
    finish.mutate({ collection: outcome.collection, state: outcome.state, key: outcome.key });
  }, [outcome, finish]);
  if (outcome?.kind !== 'finish') return outcome;
  if (finish.isSuccess) return { kind: 'connected', collection: outcome.collection };
  if (finish.isError) {
    const code = finish.error instanceof ApiError ? finish.error.code : 'oauth_provider_failed';
    return { kind: 'failed', code, collection: outcome.collection };
  }
  return outcome;
}

/** The badge and the line under it of a collection's state. */
function stateOf(c: CollectionView): { badge: string; className: string; detail: string } {
  const connection = c.connection;
  if (connection?.status === 'connected') {
    return { badge: 'Connected', className: 'badge badge-ok', detail: `by ${connection.connectedBy} on ${dateText(connection.connectedAt)}.` };
  }
  if (connection?.status === 'reconnect') {
    const why = connection.reconnectReason ?? 'The connection no longer works.';
    return { badge: 'Reconnect needed', className: 'badge badge-warn', detail: `${why} Its tools are not offered to your agents until it is connected again.` };
  }
  if (c.usesDeploymentToken) {
    return { badge: "Uses the deployment's token", className: 'badge badge-ok', detail: "Your agents call it with the token the deployment's operator configured, until your organization connects its own." };
  }
  return { badge: 'Not connected', className: 'badge', detail: 'Its tools are not offered to your agents.' };
}

/** "12 Mar 2025" in the reader's locale. */
function dateText(at: string): string {
  const when = new Date(at);
  return Number.isNaN(when.getTime()) ? at : when.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

/** One collection: its state, its app (OAuth), and what a manager may do. */
function CollectionCard({ org, collection: c, manage }: { org: string; collection: CollectionView; manage: boolean }) {
  const state = stateOf(c);
  const remove = useDisconnect(org, c.id);
  const connected = c.connection !== null;
  const headingId = `collection-${c.id}`;
  const disconnect = () => {
    if (window.confirm(`Disconnect ${c.id}? Its agents lose access at once.`)) remove.mutate();
  };
  return (
    <article className="card collection-card" aria-labelledby={headingId}>
      <div className="section-head">
        <h3 id={headingId} className="break">{c.id}</h3>
        <span className={state.className}>{state.badge}</span>
      </div>
      <p className="small muted">{state.detail}</p>
      {c.kind === 'oauth' && c.app ? <AppFacts collection={c.id} app={c.app} /> : null}
      {manage && c.kind === 'oauth' ? <ConnectActions org={org} collection={c} onDisconnect={disconnect} disconnecting={remove.isPending} /> : null}
      {manage && c.kind === 'token' ? <TokenForm org={org} collection={c} onDisconnect={disconnect} disconnecting={remove.isPending} /> : null}
      {remove.isError ? <ErrorMessage error={remove.error} title={`${c.id} was not disconnected`} /> : null}
      {manage && !connected && remove.isSuccess ? <p className="small" role="status">Disconnected.</p> : null}
    </article>
  );
}

/** The app that signs in for an OAuth collection, and what it reaches. */
function AppFacts({ collection, app }: { collection: string; app: NonNullable<CollectionView['app']> }) {
  const others = app.collections.filter((c) => c !== collection);
  // The config only takes https addresses here; anything else is not made a link.
  const url = app.reach.url && /^https:\/\//i.test(app.reach.url) ? app.reach.url : undefined;
  return (
    <div className="collection-app">
      <p>Signs in through the <strong className="break">{app.id}</strong> app.</p>
      {app.reach.note ? <p className="pre-wrap">{app.reach.note}</p> : null}
      {app.reach.signsIn ? <p>Who signs in: {app.reach.signsIn}</p> : null}
      {others.length > 0 ? <p>Also signs in for: {others.join(', ')}</p> : null}
      {url ? <p><a href={url} target="_blank" rel="noopener">About this app</a></p> : null}
    </div>
  );
}

/** Connect (not connected), Reconnect and Disconnect (reconnect needed), Disconnect (connected). */
function ConnectActions({ org, collection: c, onDisconnect, disconnecting }: { org: string; collection: CollectionView; onDisconnect: () => void; disconnecting: boolean }) {
  const start = useStartConnect(org, c.id);
  /** The browser is on its way to the provider. */
  const [leaving, setLeaving] = useState(false);
  const status = c.connection?.status;
  const connect = () => start.mutate(undefined, {
    onSuccess: (answer) => { setLeaving(true); window.location.assign(answer.authorizeUrl); },
  });
  const label = status === 'reconnect' ? 'Reconnect' : 'Connect';
  return (
    <>
      <div className="row-actions">
        {status === 'connected' ? null : <Button kind="primary" busy={start.isPending || leaving} onClick={connect} aria-label={`${label} ${c.id}`}>{label}</Button>}
        {status ? <Button kind="danger" busy={disconnecting} onClick={onDisconnect} aria-label={`Disconnect ${c.id}`}>Disconnect</Button> : null}
      </div>
      {leaving ? <p className="small muted" role="status">Going to the provider to sign in…</p> : null}
      {start.isError ? <ErrorMessage error={start.error} title={`${c.id} could not be connected`} /> : null}
    </>
  );
}

/** The organization's own token: Save token (Replace token when connected), and Disconnect when connected. */
function TokenForm({ org, collection: c, onDisconnect, disconnecting }: { org: string; collection: CollectionView; onDisconnect: () => void; disconnecting: boolean }) {
  const save = useSaveToken(org, c.id);
  const [token, setToken] = useState('');
  const [saved, setSaved] = useState(false);
  const connected = c.connection !== null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    save.mutate(token, { onSuccess: () => { setToken(''); setSaved(true); } });
  };
  return (
    <form className="token-form" onSubmit={submit} aria-label={`Token for ${c.id}`}>
      <div className="field-row">
        <TextField label="Token" type="password" autoComplete="off" spellCheck={false} value={token} required
          onChange={(e) => { setToken(e.target.value); setSaved(false); }}
          hint={connected ? "Replacing it takes effect at your agents' next call. It is never shown again." : 'It is stored sealed and never shown again.'} />
      </div>
      <div className="row-actions">
        <Button kind="primary" type="submit" busy={save.isPending}>{connected ? 'Replace token' : 'Save token'}</Button>
        {connected ? <Button kind="danger" busy={disconnecting} onClick={onDisconnect} aria-label={`Disconnect ${c.id}`}>Disconnect</Button> : null}
      </div>
      {saved ? <p className="small" role="status">Token saved.</p> : null}
      {save.isError ? <ErrorMessage error={save.error} title="The token was not saved" /> : null}
    </form>
  );
}
