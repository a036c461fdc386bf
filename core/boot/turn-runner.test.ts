import { describe, expect, it } from 'vitest';
import { PlatformError } from '../ports/platform-error.ts';
import { BrokerViolationError } from '../session/broker-rules.ts';
import type { TurnHost } from '../session/turn-host.ts';
import { configuredCost, turnBroker } from './turn-runner.ts';

const host = {
  loadTurn: async (turnId: string) => { if (turnId !== 't1') throw new PlatformError('turn_not_allowed', 'not this worker\'s'); return { turnId } as never; },
} as unknown as TurnHost;

describe('the turn broker', () => {
  it('answers the host\'s operations and refuses any other, logging each refusal without a value', async () => {
    const lines: string[] = [];
    const broker = turnBroker(host, { subject: 'turn t1', log: (line) => lines.push(line) });
    await expect(broker('turn.loadTurn', ['t1'])).resolves.toEqual({ turnId: 't1' });
    await expect(broker('turn.loadTurn', ['t2'])).rejects.toMatchObject({ code: 'turn_not_allowed' });
    await expect(broker('secrets.read', ['MASTER_KEY'])).rejects.toMatchObject({ code: 'operation_refused' });
    await expect(broker('turn.constructor', [])).rejects.toMatchObject({ code: 'operation_refused' });
    await expect(broker('turn.loadTurn/../x', 't1')).rejects.toMatchObject({ code: 'operation_refused' });
    expect(lines).toEqual(['[worker] refused turn.loadTurn for turn t1', '[worker] refused secrets.read for turn t1', '[worker] refused turn.constructor for turn t1', '[worker] refused an operation for turn t1']);
  });

  it('logs a report the workflow\'s rules refuse with the rule it breaks, never a value', async () => {
    const lines: string[] = [];
    const found = { rule: 'locked_variable' as const, message: '"trigger" is locked' };
    const violation = new BrokerViolationError('checkpoint', found);
    const refusing = { checkpoint: async () => { throw violation; } } as unknown as TurnHost;
    const broker = turnBroker(refusing, { subject: 'turn t1', log: (line) => lines.push(line) });
    const forged = ['t1', { variables: { trigger: 'ceo@example.com' } }];
    await expect(broker('turn.checkpoint', forged)).rejects.toBe(violation);
    expect(lines).toEqual([
      '[worker] refused turn.checkpoint for turn t1: it breaks the workflow rule locked_variable',
    ]);
  });

  it('prices a call with the offered model\'s prices (the default when none is named), 0 without prices', () => {
    const models = { providers: [], offered: [{ id: 'a', provider: 'p', prices: { input: 3, output: 15 } }, { id: 'b', provider: 'p', prices: { input: 1, output: 1 } }], default: 'b' };
    const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(configuredCost(models, 'a', usage)).toBe(18);
    expect(configuredCost(models, undefined, usage)).toBe(2);
    expect(configuredCost(undefined, 'a', usage)).toBe(0);
    // A default left out by a placeholder: the call runs on the first offered model, and is priced as it.
    expect(configuredCost({ ...models, default: 'gone' }, undefined, usage)).toBe(18);
  });
});
