/**
 * The session timeline's layout rules (web/src/pages/platform/sessions/timeline-layout.ts) over the view the API
 * builds (core/session/timeline-views.ts) from turn records with steps: a 2-day wait for a decision is drawn as a
 * broken gap no wider than twice the cap while the turns keep their proportions; fifty waits together stay narrower
 * than the turns; a short gap stays to scale; steps
 * sit inside their turn's run; a running turn ends now; durations read in words. Source: docs/decisions.md D25.
 */
import { describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../core/session/model.ts';
import { timelineView } from '../../core/session/timeline-views.ts';
import {
  buildAxis,
  compressedGap,
  duration,
  layoutTimeline,
  stepSpan,
} from '../../web/src/pages/platform/sessions/timeline-layout.ts';
import { manyTurns, timelineTurns } from '../fixtures/timeline-turns.ts';

const start = new Date('2026-11-20T10:00:00Z');
const session = { _id: 's1', orgId: 'o', status: 'running' } as SessionRecord;

describe('timeline layout', () => {
  it('compresses the 2-day decision wait into a broken gap and keeps the turns to scale', () => {
    const view = timelineView(session, timelineTurns(session, start, { running: true }));
    const now = Date.parse(view.turns[3].startedAt!) + 2_000;
    const { axis, turns } = layoutTimeline(view, now);
    const [prompt, decision, reply, running] = turns;
    expect(prompt.gap).toBeUndefined();
    expect(decision.gap).toMatchObject({ ms: 2 * 86_400_000, broken: true });
    expect(reply.gap).toMatchObject({ ms: 180_000, broken: true });
    expect(running.gap).toMatchObject({ ms: 1_000, broken: false });
    // Busy time is 7.4 + 3.4 + 4.2 + 3.0 s = 18 s; two long gaps share a quarter of it (cap 2.25 s): each is drawn
    // at most 4.5 s.
    expect(decision.gap!.widthPct).toBeLessThanOrEqual(2 * prompt.run.widthPct);
    expect(decision.gap!.widthPct).toBeGreaterThan(reply.gap!.widthPct);
    expect(prompt.run.widthPct / decision.run.widthPct).toBeCloseTo(6_600 / 3_100, 5);
    expect(prompt.queue.leftPct).toBe(0);
    expect(running.run.leftPct + running.run.widthPct).toBeCloseTo(100, 5);
    expect(running.endMs).toBe(now);
    expect(axis.pieces.filter((p) => p.broken)).toHaveLength(2);
    for (const t of turns) expect(t.queue.leftPct + t.queue.widthPct).toBeCloseTo(t.run.leftPct, 9);
  });

  it('leaves the turns most of the width in a 50-turn session with a wait before each', () => {
    const view = timelineView({ ...session, status: 'succeeded' }, manyTurns(session, start, 50));
    const { axis, turns } = layoutTimeline(view, 0);
    const turnsWidth = turns.reduce((n, t) => n + t.queue.widthPct + t.run.widthPct, 0);
    expect(turnsWidth).toBeGreaterThan(60);
    expect(axis.pieces.filter((p) => p.broken)).toHaveLength(49);
    for (const t of turns.slice(1)) expect(t.gap!.widthPct).toBeLessThan(t.run.widthPct);
  });

  it('draws a short gap to scale, places steps inside the run, and names durations', () => {
    const axis = buildAxis([[0, 10_000], [12_000, 20_000]]);
    expect(axis.pieces.map((p) => p.broken)).toEqual([false, false, false]);
    expect(axis.at(11_000)).toBeCloseTo(55, 5);
    expect(compressedGap(500, 1_000)).toBe(500);
    expect(compressedGap(1_000_000_000, 1_000)).toBe(2_000);
    expect(stepSpan({ atMs: 450, durationMs: 2_300 }, 6_600)).toEqual({
      leftPct: (450 / 6_600) * 100,
      widthPct: (2_300 / 6_600) * 100,
    });
    expect(stepSpan({ atMs: 6_000, durationMs: 9_000 }, 6_600).widthPct).toBeCloseTo(100 - (6_000 / 6_600) * 100, 9);
    expect([420, 6_600, 180_000, 7_500_000, 2 * 86_400_000 + 3 * 3_600_000].map(duration)).toEqual([
      '420 ms',
      '6.6 s',
      '3 min',
      '2 h 5 min',
      '2 d 3 h',
    ]);
  });
});
