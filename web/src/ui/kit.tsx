/**
 * Small building blocks every page uses, so loading, errors, paging and copying look and behave the same
 * everywhere: each action a button or link with a visible text label, each request with a loading and an
 * error state, long lists paged.
 *
 * Source: docs/decisions.md D9 (web app: 375 px and desktop, keyboard reachable, labelled actions, loading and error states, paging).
 */
import { useEffect, useId, useState, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { ApiError } from '../api/client.ts';

/** A button with a visible label; `kind` picks its look. */
export function Button({ kind = 'secondary', busy, children, ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & { kind?: 'primary' | 'secondary' | 'danger' | 'link'; busy?: boolean }) {
  return <button type="button" {...rest} className={`btn btn-${kind} ${rest.className ?? ''}`} disabled={rest.disabled || busy} aria-busy={busy || undefined}>{busy ? <span className="spinner" aria-hidden="true" /> : null}{children}</button>;
}

/** "Loading…" with a spinner, announced to screen readers. */
export function Loading({ what = 'Loading' }: { what?: string }) {
  return <p className="loading" role="status"><span className="spinner" aria-hidden="true" />{what}…</p>;
}

/** An error box: the API's message (what was wrong, what to do), its code, and an optional Try again. */
export function ErrorMessage({ error, retry, title = 'Something went wrong' }: { error: unknown; retry?: () => void; title?: string }) {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof ApiError ? error.code : undefined;
  return (
    <div className="error-box" role="alert">
      <strong>{title}</strong>
      <p className="pre-wrap">{message}</p>
      {code ? <p className="muted small">code: <code>{code}</code></p> : null}
      {retry ? <Button onClick={retry}>Try again</Button> : null}
    </div>
  );
}

/** A labelled text input. */
export function TextField({ label, hint, ...rest }: InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: string }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} {...rest} aria-describedby={hint ? `${id}-hint` : undefined} />
      {hint ? <span id={`${id}-hint`} className="hint">{hint}</span> : null}
    </div>
  );
}

/** A labelled text area. */
export function TextArea({ label, hint, ...rest }: TextareaHTMLAttributes<HTMLTextAreaElement> & { label: string; hint?: string }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} {...rest} aria-describedby={hint ? `${id}-hint` : undefined} />
      {hint ? <span id={`${id}-hint`} className="hint">{hint}</span> : null}
    </div>
  );
}

/** A labelled select of `options` (value → label). */
export function SelectField({ label, options, ...rest }: SelectHTMLAttributes<HTMLSelectElement> & { label: string; options: [string, string][] }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} {...rest}>{options.map(([value, text]) => <option key={value} value={value}>{text}</option>)}</select>
    </div>
  );
}

/** Copies `text` to the clipboard; says "Copied" for two seconds. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (done === 'idle') return;
    const timer = setTimeout(() => setDone('idle'), 2000);
    return () => clearTimeout(timer);
  }, [done]);
  const copy = () => navigator.clipboard.writeText(text).then(() => setDone('copied'), () => setDone('failed'));
  return <Button onClick={copy}>{done === 'copied' ? 'Copied' : done === 'failed' ? 'Copy failed: select and copy' : label}</Button>;
}

/** Rows per page of long lists. */
export const pageSize = 25;

/** Client-side paging of `items`: the current page's items and a pager. */
export function usePaged<T>(items: T[], size = pageSize): { rows: T[]; pager: ReactNode } {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(items.length / size));
  const current = Math.min(page, pages - 1);
  const rows = items.slice(current * size, current * size + size);
  const pager = pages <= 1 ? null : (
    <nav className="pager" aria-label="Pages">
      <Button onClick={() => setPage(current - 1)} disabled={current === 0}>Previous</Button>
      <span>Page {current + 1} of {pages} ({items.length} in all)</span>
      <Button onClick={() => setPage(current + 1)} disabled={current >= pages - 1}>Next</Button>
    </nav>
  );
  return { rows, pager };
}

/** A time as "3 min ago" with the absolute time on hover. */
export function RelativeTime({ at, now = Date.now() }: { at: string | null | undefined; now?: number }) {
  if (!at) return <span className="muted">never</span>;
  const when = new Date(at);
  return <time dateTime={when.toISOString()} title={when.toLocaleString()}>{relative(now - when.getTime())}</time>;
}

function relative(ms: number): string {
  const future = ms < 0;
  const s = Math.round(Math.abs(ms) / 1000);
  const text = s < 45 ? 'just now' : s < 3600 ? `${Math.round(s / 60)} min` : s < 86_400 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86_400)} d`;
  return text === 'just now' ? text : future ? `in ${text}` : `${text} ago`;
}

/** A page's heading row: title and actions. */
export function PageHeader({ title, children }: { title: ReactNode; children?: ReactNode }) {
  return <div className="page-header"><h1>{title}</h1>{children ? <div className="actions">{children}</div> : null}</div>;
}
