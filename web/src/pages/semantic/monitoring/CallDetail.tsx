/**
 * One call log entry in full: tool, status, token, time, endpoint, duration, the full input arguments and
 * tool output (pretty JSON; an excerpt is marked when the log cut it), and "Refine in playground" for
 * execute_query errors and other calls naming a model.
 *
 * Source: spec/semantic-query-service.md § Resources (call log entry: detail panel, Refine);
 * docs/decisions.md D9.
 */
import { useEffect, useRef } from 'react';
import { Link } from 'wouter';
import type { CallTokenView, CallView } from '../../../../../core/semantic/api/monitoring.ts';
import type { LogExcerpt } from '../../../../../core/semantic/call-log-writer.ts';
import { Button } from '../../../ui/kit.tsx';
import { playgroundHref } from '../playground/refine.ts';

/** An excerpt the log stored instead of a value beyond 65,536 characters of JSON. */
function isExcerpt(value: unknown): value is LogExcerpt {
  const v = value as Partial<LogExcerpt> | null;
  return typeof v === 'object' && v !== null && v.truncated === true && typeof v.excerpt === 'string';
}

/** The model a call names: its log field, else `modelName` of its input. */
export function modelOf(call: CallView): string | undefined {
  if (call.modelName) return call.modelName;
  const input = call.input as { modelName?: unknown } | null;
  return typeof input?.modelName === 'string' ? input.modelName : undefined;
}

/** The playground address refining `call`, or undefined when it names no model. */
export function refineHref(slug: string, call: CallView): string | undefined {
  const model = modelOf(call);
  if (!model) return undefined;
  const input = (isExcerpt(call.input) ? {} : call.input ?? {}) as { sql?: unknown; params?: unknown };
  const params = Array.isArray(input.params) ? input.params.map(String) : undefined;
  return playgroundHref(slug, { model, sql: typeof input.sql === 'string' ? input.sql : undefined, params, plane: call.plane });
}

function JsonBlock({ title, value }: { title: string; value: unknown }) {
  if (isExcerpt(value)) {
    return (
      <div>
        <h3>{title} <span className="badge badge-warn">excerpt: the log kept the first characters of {value.originalChars.toLocaleString()}</span></h3>
        <pre className="pg-pre">{value.excerpt}</pre>
      </div>
    );
  }
  const output = value as { text?: unknown; structured?: unknown } | null;
  if (title === 'Output' && output && typeof output.text === 'string') {
    return (
      <div>
        <h3>{title}</h3>
        <h4 className="small">Text (what the agent read)</h4>
        <pre className="pg-pre">{output.text}</pre>
        {output.structured !== undefined ? <><h4 className="small">Structured content</h4><pre className="pg-pre">{JSON.stringify(output.structured, null, 2)}</pre></> : null}
      </div>
    );
  }
  return <div><h3>{title}</h3><pre className="pg-pre">{JSON.stringify(value, null, 2)}</pre></div>;
}

/** The detail panel of `call`. */
export function CallDetail({ slug, call, token, onClose }: { slug: string; call: CallView; token?: CallTokenView; onClose: () => void }) {
  // Spec: for execute_query errors and other calls naming a model; every execute_query names one, so any call naming a model.
  const href = refineHref(slug, call);
  const panel = useRef<HTMLElement>(null);
  useEffect(() => { panel.current?.focus(); panel.current?.scrollIntoView?.({ block: 'nearest' }); }, [call._id]);
  return (
    <section ref={panel} tabIndex={-1} className="card mon-detail" aria-labelledby="mon-detail-title">
      <div className="page-header">
        <h2 id="mon-detail-title">{call.tool} <span className={`badge ${call.status === 'error' ? 'badge-error' : 'badge-ok'}`}>{call.status}</span></h2>
        <div className="actions">
          {href ? <Link href={href} className="btn btn-primary">Refine in playground</Link> : null}
          <Button onClick={onClose}>Close details</Button>
        </div>
      </div>
      <dl className="mon-facts">
        <dt>Time</dt><dd>{new Date(call.at).toLocaleString()} <span className="muted small">({call.at})</span></dd>
        <dt>Token</dt><dd>{token ? `${token.name} (${token.displayPrefix}…)` : call.tokenId}{token?.playground ? <span className="badge"> playground</span> : null}</dd>
        <dt>Endpoint</dt><dd>{call.plane === 'test' ? 'Test (saved sources)' : 'Production (published)'}</dd>
        <dt>Duration</dt><dd>{Math.round(call.durationMs)} ms</dd>
        {modelOf(call) ? <><dt>Model</dt><dd>{modelOf(call)}</dd></> : null}
      </dl>
      <JsonBlock title="Input" value={call.input} />
      <JsonBlock title="Output" value={call.output} />
    </section>
  );
}
