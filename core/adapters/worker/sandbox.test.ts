/**
 * planSandbox: what a launcher does with each isolation setting where namespaces work and where they do not, and the
 * line it prints. Source: docs/decisions.md D17 § 3; spec/platform-service.md § Rules 8.
 */
import { describe, expect, it } from 'vitest';
import { planSandbox } from './sandbox.ts';

const works = { ok: true, bwrap: '/usr/bin/bwrap' } as const;
const refused = {
  ok: false,
  reason: 'the kernel refused the namespaces bubblewrap asked for (bwrap: No permissions to create new namespace)',
} as const;

describe('planSandbox', () => {
  it('namespaces where they work: bubblewrap, no line', () => {
    expect(planSandbox('namespaces', true, works)).toEqual({ plan: { mode: 'namespaces', bwrap: '/usr/bin/bwrap' } });
    expect(planSandbox('namespaces', false, works)).toEqual({ plan: { mode: 'namespaces', bwrap: '/usr/bin/bwrap' } });
  });

  it('production without namespaces refuses workers, saying why and naming the opt-out', () => {
    const { plan, line } = planSandbox('namespaces', true, refused);
    expect(plan.mode).toBe('refused');
    expect(line).toMatch(/^\[worker\] refusing to start workers: workers need network and PID namespaces and the/);
    expect(line).toContain('PLATFORM_WORKER_ISOLATION=permission-only');
  });

  it('outside production without namespaces: permission-only with a warning line', () => {
    expect(planSandbox('namespaces', false, refused)).toEqual({
      plan: { mode: 'permission-only' },
      line: expect.stringMatching(/^\[worker\] warning: the kernel refused .*outside production workers run under the/),
    });
  });

  it('the permission-only opt-out runs without namespaces, in production too, with a warning line', () => {
    for (const production of [true, false]) {
      expect(planSandbox('permission-only', production, works)).toEqual({
        plan: { mode: 'permission-only' },
        line: expect.stringMatching(/^\[worker\] warning: PLATFORM_WORKER_ISOLATION=permission-only: /),
      });
    }
  });
});
