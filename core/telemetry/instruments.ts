/**
 * cairn's instruments outside the turn path (the turn path's are in `turn-metrics.ts`): webhook deliveries, rate
 * refusals, spend, semantic queries, scope builds and queue depths. Each is made on first use from the meter of the
 * global provider then registered (`metrics.getMeter` of `@opentelemetry/api`): a no-op until a bin starts the SDK,
 * and made again for the SDK's provider once it is registered. Attributes are bounded: ids and codes, never text a
 * caller wrote. Units follow the OpenTelemetry conventions (`s`, `{delivery}`, `USD`).
 * Source: docs/decisions.md D25 § 2.
 */
import {
  type Attributes,
  type Counter,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
} from '@opentelemetry/api';
import { attr, INSTRUMENTATION_SCOPE } from './names.ts';

/** Names of the instruments (the Prometheus names replace dots with underscores and add the unit's suffix). */
export const metricNames = {
  webhookDeliveries: 'cairn.webhook.deliveries',
  rateLimitRefusals: 'cairn.rate_limit.refusals',
  spend: 'cairn.spend.usd',
  semanticQueryDuration: 'cairn.semantic.query.duration',
  semanticQueryRefusals: 'cairn.semantic.query.refusals',
  scopeBuildDuration: 'cairn.semantic.scope_build.duration',
  scopeBuildWait: 'cairn.semantic.scope_build.wait',
  queueDepth: 'cairn.queue.depth',
} as const;

/** Attribute names of these instruments, beside {@link attr}. */
export const metricAttr = {
  /** `accepted`, `duplicate` or the refusal's code (webhook deliveries); `ok` or a code (scope builds). */
  outcome: 'cairn.outcome',
  /** Which rate refused: `endpoint_caller`, `endpoint`, `user`, `mcp_address`, `mcp_agent`, `mcp_token`. */
  rateLimit: 'cairn.rate_limit.name',
  /** A PlatformError code (`error.type` of the conventions). */
  errorType: attr.errorType,
  /** The MCP tool of a semantic query. */
  toolName: attr.toolName,
  /** The queue (`turns`, `webhook-firings`, …). */
  queue: 'cairn.queue.name',
  /** `waiting`, `active` or `delayed`. */
  queueState: 'cairn.queue.state',
  /** `interactive` or `background` (waiting jobs of a fair queue only). */
  queueLane: 'cairn.queue.lane',
} as const;

/** Histogram buckets of durations in seconds (5 ms to 2 min). */
const secondsBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

interface Instruments {
  meter: Meter;
  webhookDeliveries: Counter;
  rateLimitRefusals: Counter;
  spend: Counter;
  semanticQueryDuration: Histogram;
  semanticQueryRefusals: Counter;
  scopeBuildDuration: Histogram;
  scopeBuildWait: Histogram;
}

const made = new WeakMap<MeterProvider, Instruments>();

function seconds(meter: Meter, name: string, description: string): Histogram {
  return meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: secondsBuckets } });
}

function make(meter: Meter): Instruments {
  return {
    meter,
    webhookDeliveries: meter.createCounter(metricNames.webhookDeliveries, {
      unit: '{delivery}',
      description: 'Webhook deliveries answered, by outcome (accepted, duplicate or a refusal code)',
    }),
    rateLimitRefusals: meter.createCounter(metricNames.rateLimitRefusals, {
      unit: '{refusal}',
      description: 'Requests or calls refused by a rate limit, by limit',
    }),
    spend: meter.createCounter(metricNames.spend, {
      unit: 'USD',
      description: 'Cost of model calls settled, by organization, agent, environment and workflow',
    }),
    semanticQueryDuration: seconds(meter, metricNames.semanticQueryDuration, 'Duration of semantic MCP tool calls'),
    semanticQueryRefusals: meter.createCounter(metricNames.semanticQueryRefusals, {
      unit: '{refusal}',
      description: 'Semantic MCP tool calls refused or failed, by code',
    }),
    scopeBuildDuration: seconds(meter, metricNames.scopeBuildDuration, 'Duration of scope file builds'),
    scopeBuildWait: seconds(meter, metricNames.scopeBuildWait, 'Time a scope build waited for its slot'),
  };
}

/** The instruments of the provider registered now (made once per provider). */
function instruments(): Instruments {
  const provider = metrics.getMeterProvider();
  let found = made.get(provider);
  if (!found) {
    found = make(provider.getMeter(INSTRUMENTATION_SCOPE));
    made.set(provider, found);
  }
  return found;
}

/** Keeps a code-like value (lowercase word characters, at most 64) and maps anything else to `other`. */
export function boundedCode(code: string | undefined): string {
  return code !== undefined && /^[a-z][a-z0-9_]{0,63}$/.test(code) ? code : 'other';
}

/** Counts one webhook delivery answered: `accepted`, `duplicate` or the refusal's code (e.g. `rate_limited`). */
export function recordWebhookDelivery(outcome: string): void {
  instruments().webhookDeliveries.add(1, { [metricAttr.outcome]: boundedCode(outcome) });
}

/** Counts one refusal by the rate limit named `limit` (see {@link metricAttr}.rateLimit). */
export function recordRateLimitRefusal(limit: string): void {
  instruments().rateLimitRefusals.add(1, { [metricAttr.rateLimit]: boundedCode(limit) });
}

/** Whose spend a cost is. */
export interface SpendOwner {
  orgId: string;
  agentId: string;
  environment: string;
  workflow: string;
}

/** Adds `usd` (a settled cost, ≥ 0; anything else is ignored) to the spend of `owner`. */
export function recordSpend(usd: number, owner: SpendOwner): void {
  if (!(usd > 0) || !Number.isFinite(usd)) return;
  instruments().spend.add(usd, {
    [attr.orgId]: owner.orgId,
    [attr.agentId]: owner.agentId,
    [attr.environment]: owner.environment,
    [attr.workflow]: owner.workflow,
  });
}

/**
 * Records one semantic MCP tool call of `seconds`; `code` is undefined when it succeeded, else its PlatformError code
 * (also counted as a refusal). `tool` is bounded by the caller to the six tool names (else `other`).
 */
export function recordSemanticQuery(seconds: number, tool: string, code?: string): void {
  const { semanticQueryDuration, semanticQueryRefusals } = instruments();
  const attributes: Attributes = { [metricAttr.toolName]: boundedCode(tool) };
  if (code !== undefined) attributes[metricAttr.errorType] = boundedCode(code);
  semanticQueryDuration.record(seconds, attributes);
  if (code !== undefined) semanticQueryRefusals.add(1, attributes);
}

/** Records one scope build of `seconds`, `ok` or its PlatformError code. */
export function recordScopeBuild(seconds: number, outcome: string): void {
  instruments().scopeBuildDuration.record(seconds, { [metricAttr.outcome]: boundedCode(outcome) });
}

/** Records the `seconds` a scope build waited for its slot before it started. */
export function recordScopeBuildWait(seconds: number): void {
  instruments().scopeBuildWait.record(seconds);
}

/** One observation of `cairn.queue.depth`. */
export interface QueueDepth {
  queue: string;
  state: 'waiting' | 'active' | 'delayed';
  /** Waiting jobs of a fair queue's lane. */
  lane?: 'interactive' | 'background';
  jobs: number;
}

/**
 * Registers the observable gauge `cairn.queue.depth` ({job}), read by `read` at each collection (a scrape or an
 * export) and never otherwise; a `read` that fails observes nothing new (the collection still succeeds).
 * @returns stops observing
 */
export function observeQueueDepths(read: () => Promise<QueueDepth[]>): () => void {
  const gauge = instruments().meter.createObservableGauge(metricNames.queueDepth, {
    unit: '{job}',
    description: 'Jobs in each queue by state (waiting ones of a fair queue by lane)',
  });
  const callback = async (result: { observe(value: number, attributes?: Attributes): void }) => {
    const depths = await read().catch(() => []);
    for (const depth of depths) {
      result.observe(depth.jobs, {
        [metricAttr.queue]: depth.queue,
        [metricAttr.queueState]: depth.state,
        ...(depth.lane ? { [metricAttr.queueLane]: depth.lane } : {}),
      });
    }
  };
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
}
