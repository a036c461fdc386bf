/**
 * One turn's steps, opened from its bar on the session's Timeline: a table (the accessible form of the bars) of its
 * queue wait and each recorded step with when it began after the turn started, how long it took, its tokens, cost
 * and error code, each with a bar on the turn's own axis (queue wait + run); the turn's totals below. A wide table
 * scrolls inside its frame, never the page.
 *
 * Source: docs/decisions.md D25 (the session's timeline).
 */
import type { ReactNode } from 'react';
import type { TimelineStepView, TimelineTurnView } from '../../../../../core/session/timeline-views.ts';
import { statusText, usd } from './session-queries.ts';
import { clock, count, duration, stepKindText, type TurnLayout } from './timeline-layout.ts';

const at = (iso: string | undefined) => (iso ? clock(iso) : '—');

/** The steps table of the turn laid out as `layout`. */
export function TimelineTurnDetail({ layout }: { layout: TurnLayout }) {
  const t = layout.turn;
  const queued = t.queueWaitMs ?? 0;
  const runMs = t.durationMs ?? Math.max(0, layout.endMs - Date.parse(t.startedAt ?? t.queuedAt));
  const total = queued + runMs || 1;
  const bar = (from: number, length: number, kind: string) => (
    <StepBar from={from} length={length} kind={kind} total={total} />
  );
  return (
    <div className='timeline-detail' id={`timeline-detail-${t.id}`}>
      <TurnFacts turn={t} />
      <div className='timeline-table-frame'>
        <table className='timeline-table'>
          <caption>Steps of turn {layout.number} ({t.kind}, {statusText(t.status)})</caption>
          <StepsHead />
          <tbody>
            <tr>
              <th scope='row'>queue wait</th>
              <td>queued</td>
              <td>{duration(queued)}</td>
              <td />
              <td />
              <td>{bar(0, queued, 'queue')}</td>
            </tr>
            {t.steps.map((s, i) => <StepRow key={i} step={s} bar={bar(queued + s.atMs, s.durationMs, s.kind)} />)}
          </tbody>
          <TurnTotals turn={t} runMs={runMs} />
        </table>
      </div>
      {t.steps.length === 0 ? <p className='muted'>No steps were recorded for this turn.</p> : null}
      {t.stepsDropped > 0
        ? (
          <p className='muted'>
            {t.stepsDropped} more step{t.stepsDropped === 1 ? ' was' : 's were'}{' '}
            not recorded (a turn keeps its first steps only).
          </p>
        )
        : null}
    </div>
  );
}

/** A bar from `from` for `length` (ms) on the turn's axis of `total` ms (queue wait + run). */
function StepBar({ from, length, kind, total }: { from: number; length: number; kind: string; total: number }) {
  return (
    <span className='timeline-bar-frame' aria-hidden='true'>
      <span
        className={`timeline-step timeline-step-${kind}`}
        style={{
          left: `${(from / total) * 100}%`,
          width: `${Math.min(100 - (from / total) * 100, (length / total) * 100)}%`,
        }}
      />
    </span>
  );
}

/** When the turn was queued, started and ended, and its error. */
function TurnFacts({ turn: t }: { turn: TimelineTurnView }) {
  return (
    <p className='timeline-detail-facts'>
      Queued {at(t.queuedAt)} · started {at(t.startedAt)} · ended {at(t.endedAt)}
      {t.error
        ? (
          <>
            {' · '}
            <span className='session-error'>{t.error.message} ({t.error.code})</span>
          </>
        )
        : null}
    </p>
  );
}

/** The table's column headings. */
function StepsHead() {
  return (
    <thead>
      <tr>
        <th scope='col'>Step</th>
        <th scope='col'>Began</th>
        <th scope='col'>Took</th>
        <th scope='col'>Tokens in / out</th>
        <th scope='col'>Cost</th>
        <th scope='col' className='timeline-bar-col'>
          <span className='visually-hidden'>Bar</span>
        </th>
      </tr>
    </thead>
  );
}

/** The turn's totals: run time, tokens, cost, model calls. */
function TurnTotals({ turn: t, runMs }: { turn: TimelineTurnView; runMs: number }) {
  return (
    <tfoot>
      <tr>
        <th scope='row'>Turn</th>
        <td />
        <td>{duration(runMs)}</td>
        <td>{count(t.usage.inputTokens)} / {count(t.usage.outputTokens)}</td>
        <td>{usd(t.usage.costUsd)}</td>
        <td>{t.usage.modelCalls} model call{t.usage.modelCalls === 1 ? '' : 's'}</td>
      </tr>
    </tfoot>
  );
}

/** One step: kind and name, start, duration, tokens, cost (and error code), and its bar. */
function StepRow({ step, bar }: { step: TimelineStepView; bar: ReactNode }) {
  const tokens = step.inputTokens !== undefined || step.outputTokens !== undefined;
  return (
    <tr className={step.error ? 'timeline-step-failed' : undefined}>
      <th scope='row'>
        {stepKindText[step.kind] ?? step.kind} <code>{step.name}</code>
        {step.error ? ' ' : null}
        {step.error ? <span className='badge badge-error'>{step.error}</span> : null}
      </th>
      <td>+{duration(step.atMs)}</td>
      <td>{duration(step.durationMs)}</td>
      <td>{tokens ? `${count(step.inputTokens ?? 0)} / ${count(step.outputTokens ?? 0)}` : ''}</td>
      <td>{step.costUsd !== undefined ? usd(step.costUsd) : ''}</td>
      <td>{bar}</td>
    </tr>
  );
}
