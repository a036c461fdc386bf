/**
 * Pure layout of a session's timeline (the session page's Timeline section): turns on one shared time axis whose
 * long idle gaps (a 2-day wait for a decision) are compressed, so a session's busy stretches still read; steps
 * placed inside their turn's run; figures in words. Shapes come from core/session/timeline-views.ts.
 *
 * Source: docs/decisions.md D25 (the session's timeline).
 */
import type { SessionTimelineView, TimelineTurnView } from '../../../../../core/session/timeline-views.ts';

/** A stretch of the axis: real times [fromMs, toMs) drawn from `startPct` over `widthPct` (0–100) of the width. */
export interface AxisPiece {
  fromMs: number;
  toMs: number;
  startPct: number;
  widthPct: number;
  /** An idle gap drawn shorter than its length (a broken axis). */
  broken: boolean;
}

/** The shared axis: pieces in time order, and where a real time (epoch ms) falls on it, in % of the width. */
export interface TimelineAxis {
  pieces: AxisPiece[];
  startMs: number;
  endMs: number;
  at(ms: number): number;
}

/** A span of the axis in % of the width. */
export interface Span {
  leftPct: number;
  widthPct: number;
}

/** One turn laid out: where its queue wait and run lie on the axis, its end (epoch ms; now while it runs). */
export interface TurnLayout {
  turn: TimelineTurnView;
  /** 1-based position among the session's turns. */
  number: number;
  queue: Span;
  run: Span;
  endMs: number;
  /** The idle gap before it (from the previous turn's end), when there is one. */
  gap?: Span & { ms: number; broken: boolean };
}

const time = (iso: string) => Date.parse(iso);
const lastStepEnd = (t: TimelineTurnView) => t.steps.reduce((end, s) => Math.max(end, s.atMs + s.durationMs), 0);

/** A turn's end: `endedAt`; while queued or running, `nowMs`; else its start plus its last step's end. */
export function turnEnd(t: TimelineTurnView, nowMs: number): number {
  if (t.endedAt) return time(t.endedAt);
  const started = t.startedAt ? time(t.startedAt) : time(t.queuedAt);
  if (t.status === 'running' || t.status === 'queued') return Math.max(nowMs, started);
  return started + lastStepEnd(t);
}

/** How wide an idle gap of `ms` is drawn when longer than `cap` (ms): `cap`, growing slowly (log) up to 2 × `cap`. */
export function compressedGap(ms: number, cap: number): number {
  if (ms <= cap) return ms;
  return cap * Math.min(2, 1 + Math.log10(ms / cap) / 3);
}

/**
 * The longest idle gap drawn to scale, in ms: 15 % of the busy time (at least 1 s), made smaller when many gaps
 * exceed it so that together they take about a quarter of the busy time (never under 0.5 % of it): fifty turns with
 * waits between them still leave the turns most of the width.
 */
export function gapCap(busyMs: number, gaps: number[]): number {
  const first = Math.max(1_000, busyMs * 0.15);
  const long = gaps.filter((g) => g > first).length;
  return long === 0 ? first : Math.max(busyMs * 0.005, Math.min(first, (busyMs * 0.25) / long));
}

/**
 * The axis over `spans` (real [from, to] in epoch ms, any order): busy stretches to scale, idle gaps longer than
 * {@link gapCap} compressed ({@link compressedGap}) and marked broken.
 */
export function buildAxis(spans: [number, number][]): TimelineAxis {
  const sorted = spans.map(([a, b]) => [a, Math.max(a, b)] as [number, number]).sort((x, y) => x[0] - y[0]);
  const busy: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = busy.at(-1);
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else busy.push([a, b]);
  }
  const busyMs = busy.reduce((n, [a, b]) => n + (b - a), 0);
  const cap = gapCap(busyMs, busy.slice(1).map(([a], i) => a - busy[i][1]));
  const raw: Omit<AxisPiece, 'startPct' | 'widthPct'>[] = [];
  busy.forEach(([a, b], i) => {
    if (i > 0 && a > busy[i - 1][1]) raw.push({ fromMs: busy[i - 1][1], toMs: a, broken: a - busy[i - 1][1] > cap });
    raw.push({ fromMs: a, toMs: b, broken: false });
  });
  const drawn = raw.map((p) => (p.broken ? compressedGap(p.toMs - p.fromMs, cap) : p.toMs - p.fromMs));
  const total = drawn.reduce((n, w) => n + w, 0) || 1;
  let start = 0;
  const pieces = raw.map((p, i) => {
    const piece = { ...p, startPct: (start / total) * 100, widthPct: (drawn[i] / total) * 100 };
    start += drawn[i];
    return piece;
  });
  const at = (ms: number): number => {
    const piece = pieces.find((p) => ms <= p.toMs) ?? pieces.at(-1);
    if (!piece) return 0;
    const length = piece.toMs - piece.fromMs;
    const within = length === 0 ? 0 : Math.min(1, Math.max(0, (ms - piece.fromMs) / length));
    return piece.startPct + within * piece.widthPct;
  };
  return { pieces, startMs: busy[0]?.[0] ?? 0, endMs: busy.at(-1)?.[1] ?? 0, at };
}

const span = (axis: TimelineAxis, from: number, to: number): Span => {
  const leftPct = axis.at(from);
  return { leftPct, widthPct: Math.max(0, axis.at(to) - leftPct) };
};

/** The turns of `view` laid out on one axis (with `nowMs` for the end of what still runs or waits). */
export function layoutTimeline(view: SessionTimelineView, nowMs: number): { axis: TimelineAxis; turns: TurnLayout[] } {
  const ends = view.turns.map((t) => turnEnd(t, nowMs));
  const spans = view.turns.map((t, i) => [time(t.queuedAt), ends[i]] as [number, number]);
  const axis = buildAxis(spans);
  const turns = view.turns.map((t, i): TurnLayout => {
    const queued = time(t.queuedAt);
    const started = t.startedAt ? time(t.startedAt) : ends[i];
    const previousEnd = i > 0 ? ends[i - 1] : undefined;
    const gapPiece = previousEnd !== undefined && queued > previousEnd
      ? axis.pieces.find((p) => p.fromMs === previousEnd && p.toMs === queued)
      : undefined;
    return {
      turn: t,
      number: i + 1,
      endMs: ends[i],
      queue: span(axis, queued, started),
      run: span(axis, started, ends[i]),
      ...(previousEnd !== undefined && queued > previousEnd
        ? { gap: { ...span(axis, previousEnd, queued), ms: queued - previousEnd, broken: gapPiece?.broken ?? false } }
        : {}),
    };
  });
  return { axis, turns };
}

/** A step inside its turn's run, in % of the run's width (clamped to it). */
export function stepSpan(step: { atMs: number; durationMs: number }, runMs: number): Span {
  if (runMs <= 0) return { leftPct: 0, widthPct: 0 };
  const leftPct = Math.min(100, (step.atMs / runMs) * 100);
  return { leftPct, widthPct: Math.min(100 - leftPct, (step.durationMs / runMs) * 100) };
}

/** A duration in words: `850 ms`, `6.6 s`, `3 min`, `2 h 5 min`, `2 d 3 h`. */
export function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

/** A time on the page: `Nov 29, 14:49:27` (the browser's time zone). */
export const clock = (ms: number | string): string =>
  new Date(ms).toLocaleString('en-US', {
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });

/** A whole number with thousands separators (`2,850`). */
export const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/** What a step kind is called on the page. */
export const stepKindText: Record<string, string> = {
  worker_start: 'worker start',
  model_call: 'model call',
  tool_call: 'tool call',
  hook: 'hook',
  child: 'child session',
  refusal: 'refusal',
};
