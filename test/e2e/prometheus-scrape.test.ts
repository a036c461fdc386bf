/**
 * cairn's metrics scraped by a real Prometheus (Debian's `prometheus`): the product started with
 * OTEL_METRICS_EXPORTER=prometheus serves each process's endpoint on loopback (api on OTEL_EXPORTER_PROMETHEUS_PORT,
 * the dispatcher on the next port, semantic-mcp on the one after), Prometheus scrapes the three every second, and a
 * webhook delivery whose turn makes one scripted model call (the `hooks` fixture agent) shows through Prometheus's
 * query API: the GenAI client token usage, the delivery accepted and the one refused, the spend of the call, and the
 * depth of the turn queue. Source: docs/decisions.md D25 § 2.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.ts';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { startScriptedModelServer, type ScriptedModelServer, scriptedModels } from '../helpers/scripted-model-server.ts';

let model: ScriptedModelServer;
let product: RunningProduct;
let prometheus: ChildProcess;
let prometheusUrl: string;
let workDir: string;
const prometheusOutput: string[] = [];
let metricsPort: number;

/** A port whose next two are free as well (the entrypoint gives the three processes consecutive ports). */
async function threeFreePorts(): Promise<number> {
  const free = (port: number) => new Promise<boolean>((resolve) => {
    const server = createServer().once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = await freePort();
    if (base <= 65_533 && await free(base + 1) && await free(base + 2)) return base;
  }
  throw new Error('no three consecutive free ports');
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}\n${prometheusOutput.slice(-10).join('\n')}\n${product?.output.slice(-20).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

type Sample = { metric: Record<string, string>; value: [number, string] };

/** The samples of `query` through Prometheus's query API. */
async function query(expr: string): Promise<Sample[]> {
  const answer = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = await answer.json() as { status: string; data: { result: Sample[] } };
  expect(body.status).toBe('success');
  return body.data.result;
}

/** The samples of `expr` once there are some. */
const samples = (expr: string) => until(expr, async () => {
  const found = await query(expr);
  return found.length > 0 ? found : undefined;
});

beforeAll(async () => {
  model = await startScriptedModelServer([{ text: 'Triaged the delivery.' }]);
  metricsPort = await threeFreePorts();
  product = await startProduct({
    PLATFORM_CONFIG: JSON.stringify({ models: scriptedModels(model) }),
    OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: String(metricsPort),
  });
  workDir = mkdtempSync(join(tmpdir(), 'cairn-prometheus-'));
  const targets = [0, 1, 2].map((i) => `'127.0.0.1:${metricsPort + i}'`).join(', ');
  writeFileSync(join(workDir, 'prometheus.yml'), [
    'global:', '  scrape_interval: 1s', '  evaluation_interval: 1s',
    'scrape_configs:', '  - job_name: cairn', '    static_configs:', `      - targets: [${targets}]`, '',
  ].join('\n'));
  const webPort = await freePort();
  prometheusUrl = `http://127.0.0.1:${webPort}`;
  prometheus = spawn('prometheus', [
    `--config.file=${join(workDir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(workDir, 'data')}`,
    `--web.listen-address=127.0.0.1:${webPort}`,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [prometheus.stdout!, prometheus.stderr!]) {
    stream.on('data', (chunk: Buffer) => prometheusOutput.push(...chunk.toString().split('\n').filter(Boolean)));
  }
  await until('Prometheus to be ready', async () => ((await fetch(`${prometheusUrl}/-/ready`)).ok ? true : undefined));
}, 180_000);

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const exited = new Promise((r) => prometheus.once('exit', r));
    prometheus.kill('SIGTERM');
    await exited;
  }
  await product?.stop();
  await model?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

type Session = { status: string };

describe('cairn\'s metrics through Prometheus', () => {
  it('serves each process\'s endpoint on loopback at its own port', { timeout: 400_000 }, async () => {
    for (const [tag, offset] of [['api', 0], ['dispatcher', 1], ['semantic-mcp', 2]] as const) {
      const endpoint = `http://127.0.0.1:${metricsPort + offset}/metrics`;
      // The dispatcher runs at niceness 10: on a busy machine its endpoint may answer well after the API's.
      const served = await until(`${tag}'s endpoint`, async () => ((await fetch(endpoint)).ok ? true : undefined), 120_000);
      expect(served).toBe(true);
      expect((await fetch(endpoint.replace('/metrics', '/other'))).status).toBe(404);
    }
    const up = await until('three targets up', async () => {
      const found = await query('up{job="cairn"} == 1');
      return found.length === 3 ? found : undefined;
    });
    expect(up.map((s) => s.metric.instance).sort()).toEqual([0, 1, 2].map((i) => `127.0.0.1:${metricsPort + i}`).sort());
  });

  it('shows a webhook delivery, its model call\'s tokens and spend, and the queue depth', { timeout: 400_000 }, async () => {
    const imported = runCairn(product.url, ['agent', 'import', join(repoRoot, 'test/fixtures/agents/hooks'), '--agent', 'hooks', '--publish']);
    expect(imported.status, imported.stderr).toBe(0);
    const created = runCairn(product.url, ['connection', 'create', '--agent', 'hooks', '--env', 'main', '--id', 'github', '--protocol', 'webhook', '--auth', 'bearer', '--json']);
    expect(created.status, created.stderr).toBe(0);
    const hook = JSON.parse(created.stdout) as { url: string; token: string };
    const url = hook.url.replace(/^https?:\/\/[^/]+/, product.url);
    const post = (headers: Record<string, string>) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"action":"opened"}' });
    expect((await post({ authorization: `Bearer ${hook.token}`, 'x-delivery-id': 'm-1' })).status).toBe(202);
    expect((await post({ 'x-delivery-id': 'm-2' })).status).toBe(401);
    const sessionsUrl = `${product.url}/api/agents/hooks/environments/main/workflows/intake/sessions`;
    await until('the delivery\'s session to settle', async () => {
      const { sessions } = await (await fetch(sessionsUrl)).json() as { sessions: Session[] };
      return sessions.length === 1 && sessions[0]!.status !== 'running' ? true : undefined;
    });
    expect(model.requests).toHaveLength(1);

    const accepted = await samples('cairn_webhook_deliveries_total{cairn_outcome="accepted"}');
    expect(accepted.map((s) => Number(s.value[1]))).toEqual([1]);
    expect(accepted[0]!.metric.instance).toBe(`127.0.0.1:${metricsPort}`);
    const refused = await samples('cairn_webhook_deliveries_total{cairn_outcome="connection_unauthorized"}');
    expect(refused.map((s) => Number(s.value[1]))).toEqual([1]);

    const tokens = await samples('sum(gen_ai_client_token_usage_sum)');
    expect(Number(tokens[0]!.value[1])).toBeGreaterThan(0);
    const spend = await samples('cairn_spend_usd_total');
    expect(spend[0]!.metric).toMatchObject({ cairn_environment: 'main', cairn_workflow: 'intake' });
    expect(spend[0]!.metric.gen_ai_agent_id).toMatch(/^[a-z0-9]+$/);
    expect(spend[0]!.metric.cairn_org_id).toMatch(/^[\w-]+$/);
    expect(Number(spend[0]!.value[1])).toBeGreaterThan(0);
    expect(spend[0]!.metric.instance).toBe(`127.0.0.1:${metricsPort + 1}`);

    const depths = await samples('cairn_queue_depth{cairn_queue_name="turns"}');
    expect(depths.map((s) => s.metric.cairn_queue_state).sort()).toEqual(['active', 'delayed', 'waiting', 'waiting']);
    expect(depths.filter((s) => s.metric.cairn_queue_state === 'waiting').map((s) => s.metric.cairn_queue_lane).sort())
      .toEqual(['background', 'interactive']);
  });
});
