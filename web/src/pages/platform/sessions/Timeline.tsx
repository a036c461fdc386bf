/**
 * The session page's Timeline section: every turn as a bar on one shared time axis (its queue wait hatched, its run
 * solid with the recorded steps inside), the waits for a decision or a reply between turns as labelled gaps, long
 * idle gaps compressed (a broken axis, marked ≈). A turn's bar is a button: it opens the turn's steps as a table
 * with their start, duration, tokens and cost (TimelineTurnDetail.tsx). One request for the whole timeline, polled
 * every 2 s while a turn runs. Narrow screens stack each row's label above its bar.
 *
 * Source: docs/decisions.md D25 (the session's timeline).
 */
import { Fragment, useState } from 'react';
import type { SessionTimelineView, TimelineTurnView } from '../../../../../core/session/timeline-views.ts';
import { ErrorMessage, Loading } from '../../../ui/kit.tsx';
import { statusClass, statusText, usd, useSessionTimeline } from './session-queries.ts';
import { TimelineTurnDetail } from './TimelineTurnDetail.tsx';
import {
  clock,
  count,
  duration,
  layoutTimeline,
  stepKindText,
  stepSpan,
  type TimelineAxis,
  type TurnLayout,
} from './timeline-layout.ts';
import './timeline.css';

/** The Timeline section of session `sessionId` (`busy`: a turn may still change it, so it is polled). */
export function Timeline({ sessionId, busy }: { sessionId: string; busy: boolean }) {
  const shown = useSessionTimeline(sessionId, busy);
  const [open, setOpen] = useState<string>();
  const heading = <h2 id='timeline-heading'>Timeline</h2>;
  if (shown.isPending) {
    return (
      <section className='timeline'>
        {heading}
        <Loading what='Loading the timeline' />
      </section>
    );
  }
  if (shown.isError) {
    return (
      <section className='timeline'>
        {heading}
        <ErrorMessage error={shown.error} retry={() => void shown.refetch()} title='Could not load the timeline' />
      </section>
    );
  }
  const view = shown.data;
  if (view.turns.length === 0) {
    return (
      <section className='timeline'>
        {heading}
        <p className='muted'>No turns yet.</p>
      </section>
    );
  }
  const now = Date.now();
  return (
    <section className='timeline' aria-labelledby='timeline-heading'>
      {heading}
      <Summary view={view} now={now} />
      <Legend />
      <TurnRows view={view} now={now} open={open} setOpen={setOpen} />
    </section>
  );
}

/** The rows on the time axis: the ruler, each turn (its gap before, its steps when `open`), and a wait going on. */
function TurnRows({ view, now, open, setOpen }: {
  view: SessionTimelineView;
  now: number;
  open: string | undefined;
  setOpen: (turnId: string | undefined) => void;
}) {
  const { axis, turns } = layoutTimeline(view, now);
  return (
    <ol className='timeline-rows' aria-label='Turns on a time axis'>
      <Ruler axis={axis} />
      {turns.map((t) => (
        <Fragment key={t.turn.id}>
          {t.gap && (t.turn.waitBefore || t.gap.broken) ? <GapRow layout={t} /> : null}
          <TurnRow
            layout={t}
            open={open === t.turn.id}
            toggle={() => setOpen(open === t.turn.id ? undefined : t.turn.id)}
          />
          {open === t.turn.id
            ? (
              <li className='timeline-detail-row'>
                <TimelineTurnDetail layout={t} />
              </li>
            )
            : null}
        </Fragment>
      ))}
      {view.waiting
        ? (
          <li className='timeline-row timeline-gap timeline-now'>
            {waitText(view.waiting.for, now - Date.parse(view.waiting.since), true)}
          </li>
        )
        : null}
    </ol>
  );
}

const waitText = (what: 'decision' | 'reply', ms: number, still = false) =>
  `${still ? 'waiting' : 'waited'} for a ${what} ${duration(ms)}`;

/** Turns, running time, time spent waiting for people, cost. */
function Summary({ view, now }: { view: SessionTimelineView; now: number }) {
  const ran = view.turns.reduce((n, t) => n + (t.durationMs ?? 0), 0);
  const queued = view.turns.reduce((n, t) => n + (t.queueWaitMs ?? 0), 0);
  const waited = view.turns.reduce((n, t) => n + (t.waitBefore?.ms ?? 0), 0) +
    (view.waiting ? now - Date.parse(view.waiting.since) : 0);
  const cost = view.turns.reduce((n, t) => n + t.usage.costUsd, 0);
  return (
    <p className='timeline-summary'>
      {view.turns.length} turn{view.turns.length === 1 ? '' : 's'} · ran {duration(ran)} · queued {duration(queued)}
      {waited > 0 ? ` · waited for people ${duration(waited)}` : null}
      {` · ${usd(cost)}`}
    </p>
  );
}

/** What the colours mean. */
function Legend() {
  const kinds = ['queue', 'worker_start', 'model_call', 'tool_call', 'hook', 'child', 'refusal'];
  return (
    <ul className='timeline-legend' aria-label='Legend'>
      {kinds.map((k) => (
        <li key={k}>
          <span className={`timeline-swatch timeline-step-${k}`} aria-hidden='true' />
          {k === 'queue' ? 'queue wait' : stepKindText[k]}
        </li>
      ))}
      <li>
        <span className='timeline-swatch timeline-swatch-break' aria-hidden='true'>≈</span>gap shortened
      </li>
    </ul>
  );
}

/** The axis: its first and last times, and where it is broken (marked when at most 12 breaks, else counted). */
function Ruler({ axis }: { axis: TimelineAxis }) {
  const breaks = axis.pieces.filter((p) => p.broken);
  return (
    <li className='timeline-row timeline-ruler' aria-label={`From ${clock(axis.startMs)} to ${clock(axis.endMs)}`}>
      <span className='timeline-label muted'>
        <span>{clock(axis.startMs)} → {clock(axis.endMs)}</span>
        {breaks.length > 12 ? <span>{breaks.length} gaps shortened</span> : null}
      </span>
      <span className='timeline-track' aria-hidden='true'>
        {breaks.length > 12
          ? null
          : breaks.map((p) => (
            <span key={p.fromMs} className='timeline-break' style={{ left: `${p.startPct}%`, width: `${p.widthPct}%` }}>
              ≈
            </span>
          ))}
      </span>
    </li>
  );
}

/** The gap before a turn: a wait for a decision or reply (labelled), or a long idle stretch. */
function GapRow({ layout }: { layout: TurnLayout }) {
  const gap = layout.gap!;
  const wait = layout.turn.waitBefore;
  const text = wait ? waitText(wait.for, wait.ms) : `idle ${duration(gap.ms)}`;
  return (
    <li className='timeline-row timeline-gap'>
      <span className='timeline-label'>
        <span>
          <span>{text}</span>
          {gap.broken ? <span className='visually-hidden'>(drawn shortened)</span> : null}
        </span>
      </span>
      <span className='timeline-track' aria-hidden='true'>
        <span
          className={gap.broken ? 'timeline-gap-bar timeline-gap-broken' : 'timeline-gap-bar'}
          style={{ left: `${gap.leftPct}%`, width: `${gap.widthPct}%` }}
        >
          {gap.broken ? '≈' : null}
        </span>
      </span>
    </li>
  );
}

/** A turn in words, for its button's accessible name. */
function turnWords(layout: TurnLayout): string {
  const t = layout.turn;
  const parts = [`Turn ${layout.number}, ${t.kind}, ${statusText(t.status)}`];
  if (t.queueWaitMs !== undefined) parts.push(`queued ${duration(t.queueWaitMs)}`);
  if (t.durationMs !== undefined) parts.push(`ran ${duration(t.durationMs)}`);
  parts.push(
    `${count(t.usage.inputTokens + t.usage.outputTokens)} tokens`,
    usd(t.usage.costUsd),
    `${t.steps.length} steps`,
  );
  return parts.join(', ');
}

const stepTitle = (s: TimelineTurnView['steps'][number]) =>
  `${stepKindText[s.kind] ?? s.kind} ${s.name}: ${duration(s.durationMs)}` +
  (s.inputTokens !== undefined ? `, ${count(s.inputTokens)} in / ${count(s.outputTokens ?? 0)} out tokens` : '') +
  (s.costUsd !== undefined ? `, ${usd(s.costUsd)}` : '') + (s.error ? `, error ${s.error}` : '');

/** One turn: label and figures, and its bar (queue wait, run, steps) on the axis; a button opening its steps. */
function TurnRow({ layout, open, toggle }: { layout: TurnLayout; open: boolean; toggle: () => void }) {
  const t = layout.turn;
  const runMs = t.durationMs ?? layout.endMs - Date.parse(t.startedAt ?? t.queuedAt);
  return (
    <li className='timeline-row'>
      <button
        type='button'
        className='timeline-turn'
        aria-expanded={open}
        aria-controls={`timeline-detail-${t.id}`}
        aria-label={turnWords(layout)}
        onClick={toggle}
      >
        <span className='timeline-label'>
          <span>
            <strong>#{layout.number} {t.kind}</strong>{' '}
            <span className={statusClass(t.status)}>{statusText(t.status)}</span>
          </span>
          <span className='timeline-figures'>
            {duration(runMs)} · {count(t.usage.inputTokens + t.usage.outputTokens)} tok · {usd(t.usage.costUsd)}
          </span>
        </span>
        <span className='timeline-track' aria-hidden='true'>
          <span
            className='timeline-queue timeline-step-queue'
            style={{ left: `${layout.queue.leftPct}%`, width: `${layout.queue.widthPct}%` }}
            title={`queue wait ${duration(t.queueWaitMs ?? 0)}`}
          />
          <span
            className={`timeline-run timeline-run-${t.status}`}
            style={{ left: `${layout.run.leftPct}%`, width: `${layout.run.widthPct}%` }}
          >
            {t.steps.map((s, i) => {
              const at = stepSpan(s, runMs);
              return (
                <span
                  key={i}
                  className={`timeline-step timeline-step-${s.kind}`}
                  style={{ left: `${at.leftPct}%`, width: `${at.widthPct}%` }}
                  title={stepTitle(s)}
                />
              );
            })}
          </span>
        </span>
      </button>
    </li>
  );
}
