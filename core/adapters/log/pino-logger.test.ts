/**
 * Logs join traces: a line written inside an active span carries its `trace_id` and `span_id`; outside any span, or
 * with an invalid span context, it carries neither. Source: docs/decisions.md D25 § 1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { createPinoLogger } from './pino-logger.ts';

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

function logged(): { lines: Record<string, unknown>[]; logger: ReturnType<typeof createPinoLogger> } {
  const lines: Record<string, unknown>[] = [];
  const destination = { write: (line: string) => void lines.push(JSON.parse(line)) };
  return { lines, logger: createPinoLogger({ name: 'test', destination }) };
}

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';

describe('trace fields of log lines', () => {
  it('adds trace_id and span_id inside an active span, also after an await', async () => {
    const { lines, logger } = logged();
    const active = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED });
    await context.with(active, async () => {
      await new Promise((r) => setTimeout(r, 1));
      logger.child({ component: 'x' }).info({ token: 'secret-value' }, 'inside');
    });
    logger.info({}, 'outside');
    expect(lines.map((l) => [l.msg, l.trace_id, l.span_id])).toEqual([
      ['inside', traceId, spanId],
      ['outside', undefined, undefined],
    ]);
    expect(lines[0]!.token).toBe('[redacted]');
  });

  it('adds nothing for an invalid span context', () => {
    const { lines, logger } = logged();
    const zeros = { traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 };
    const invalid = trace.setSpanContext(ROOT_CONTEXT, zeros);
    context.with(invalid, () => logger.warn({}, 'invalid'));
    expect(lines[0]).not.toHaveProperty('trace_id');
    expect(lines[0]).not.toHaveProperty('span_id');
  });
});
