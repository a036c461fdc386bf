/**
 * cairn's instruments outside the turn path on the real SDK (a meter provider registered globally, collected by a
 * reader): no-ops before a provider is registered, made again for the provider once it is, attributes bounded.
 * Source: docs/decisions.md D25 § 2.
 */
import { metrics } from '@opentelemetry/api';
import { type CollectionResult, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import {
  boundedCode,
  metricNames,
  observeQueueDepths,
  recordRateLimitRefusal,
  recordSemanticQuery,
  recordSpend,
  recordWebhookDelivery,
} from './instruments.ts';

/** A reader collected on demand. */
class CollectingReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const points = (result: CollectionResult, name: string) =>
  result.resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).filter((m) => m.descriptor.name === name)
    .flatMap((m) => m.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value })));

let provider: MeterProvider | undefined;
afterEach(async () => {
  metrics.disable();
  await provider?.shutdown();
});

function register(): CollectingReader {
  const reader = new CollectingReader();
  provider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(provider);
  return reader;
}

describe('instruments outside the turn path', () => {
  it('are no-ops without a provider and count once one is registered', async () => {
    recordWebhookDelivery('accepted');
    const reader = register();
    recordWebhookDelivery('accepted');
    recordWebhookDelivery('connection_unauthorized');
    recordWebhookDelivery('Nothing is served at this address.');
    const result = await reader.collect();
    expect(points(result, metricNames.webhookDeliveries)).toEqual([
      { attributes: { 'cairn.outcome': 'accepted' }, value: 1 },
      { attributes: { 'cairn.outcome': 'connection_unauthorized' }, value: 1 },
      { attributes: { 'cairn.outcome': 'other' }, value: 1 },
    ]);
  });

  it('records spend by organization, agent, environment and workflow, and ignores no cost', async () => {
    const reader = register();
    const owner = { orgId: 'o1', agentId: 'a1', environment: 'main', workflow: 'intake' };
    recordSpend(0.25, owner);
    recordSpend(0, owner);
    recordSpend(Number.NaN, owner);
    const result = await reader.collect();
    expect(points(result, metricNames.spend)).toEqual([{
      attributes: {
        'cairn.org.id': 'o1',
        'gen_ai.agent.id': 'a1',
        'cairn.environment': 'main',
        'cairn.workflow': 'intake',
      },
      value: 0.25,
    }]);
  });

  it('counts refusals by limit and semantic failures by code', async () => {
    const reader = register();
    recordRateLimitRefusal('endpoint_caller');
    recordSemanticQuery(0.2, 'execute_query');
    recordSemanticQuery(0.1, 'execute_query', 'query_timeout');
    const result = await reader.collect();
    expect(points(result, metricNames.rateLimitRefusals)).toEqual([
      { attributes: { 'cairn.rate_limit.name': 'endpoint_caller' }, value: 1 },
    ]);
    expect(points(result, metricNames.semanticQueryRefusals)).toEqual([
      { attributes: { 'gen_ai.tool.name': 'execute_query', 'error.type': 'query_timeout' }, value: 1 },
    ]);
    expect(points(result, metricNames.semanticQueryDuration)).toHaveLength(2);
  });

  it('reads queue depths at collection only, and a failed read fails no collection', async () => {
    const reader = register();
    let reads = 0;
    let fail = false;
    const stop = observeQueueDepths(async () => {
      reads += 1;
      if (fail) throw new Error('queue store down');
      return [{ queue: 'turns', state: 'waiting', lane: 'interactive', jobs: 4 }];
    });
    expect(reads).toBe(0);
    expect(points(await reader.collect(), metricNames.queueDepth)).toEqual([{
      attributes: { 'cairn.queue.name': 'turns', 'cairn.queue.state': 'waiting', 'cairn.queue.lane': 'interactive' },
      value: 4,
    }]);
    fail = true;
    const afterFailure = await reader.collect();
    expect(afterFailure.errors).toEqual([]);
    expect(reads).toBe(2);
    stop();
  });

  it('keeps code-like values only', () => {
    expect(boundedCode('rate_limited')).toBe('rate_limited');
    expect(boundedCode('Rate limited')).toBe('other');
    expect(boundedCode(undefined)).toBe('other');
    expect(boundedCode('a'.repeat(65))).toBe('other');
  });
});
