import { describe, expect, it } from 'vitest';
import { PlatformError } from '../ports/platform-error.ts';
import { BrokerViolationError } from './broker-rules.ts';
import type { TurnHost } from './turn-host.ts';
import { turnBroker } from './turn-runner.ts';

const host = {
  loadTurn: async (turnId: string) => {
    if (turnId !== 't1') throw new PlatformError('turn_not_allowed', "not this worker's");
    return { turnId } as never;
  },
} as unknown as TurnHost;

describe('the turn broker', () => {
  it("answers the host's operations and refuses any other, logging each refusal without a value", async () => {
    const lines: string[] = [];
    const broker = turnBroker(host, { subject: 'turn t1', log: (line) => lines.push(line) });
    await expect(broker('turn.loadTurn', ['t1'])).resolves.toEqual({ turnId: 't1' });
    await expect(broker('turn.loadTurn', ['t2'])).rejects.toMatchObject({ code: 'turn_not_allowed' });
    await expect(broker('secrets.read', ['MASTER_KEY'])).rejects.toMatchObject({ code: 'operation_refused' });
    await expect(broker('turn.constructor', [])).rejects.toMatchObject({ code: 'operation_refused' });
    await expect(broker('turn.loadTurn/../x', 't1')).rejects.toMatchObject({ code: 'operation_refused' });
    expect(lines).toEqual([
      '[worker] refused turn.loadTurn for turn t1',
      '[worker] refused secrets.read for turn t1',
      '[worker] refused turn.constructor for turn t1',
      '[worker] refused an operation for turn t1',
    ]);
  });

  it("logs a report the workflow's rules refuse with the rule it breaks, never a value", async () => {
    const lines: string[] = [];
    const found = { rule: 'locked_variable' as const, message: '"trigger" is locked' };
    const violation = new BrokerViolationError('checkpoint', found);
    const refusing = {
      checkpoint: async () => {
        throw violation;
      },
    } as unknown as TurnHost;
    const broker = turnBroker(refusing, { subject: 'turn t1', log: (line) => lines.push(line) });
    const forged = ['t1', { variables: { trigger: 'ceo@example.com' } }];
    await expect(broker('turn.checkpoint', forged)).rejects.toBe(violation);
    expect(lines).toEqual([
      '[worker] refused turn.checkpoint for turn t1: it breaks the workflow rule locked_variable',
    ]);
  });
});
