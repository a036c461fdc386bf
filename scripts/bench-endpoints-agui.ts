/**
 * Part 3 of scripts/bench-endpoints: AG-UI time to RUN_STARTED. `POST /api/agui/<address>` with a RunAgentInput
 * body and `Accept: text/event-stream`, timed from the request's start to the first SSE `data:` line whose JSON
 * has `type: "RUN_STARTED"`; each run is read to its end (bounded) before the next starts. Against the time to
 * first byte (the answer's headers) of `GET /api/health`, alternated with the runs. When the endpoint cannot be
 * measured (no AG-UI connection, no such route, no RUN_STARTED) the row says why instead of a figure.
 *
 * Source: spec/platform-service.md § Endpoints (AG-UI); docs/decisions.md D8 (endpoints).
 */
import type { RunningProduct } from '../test/helpers/product.ts';
import { quantile } from './bench-endpoints-load.ts';

/** Longest one AG-UI run may stream before the bench gives up on it (ms). */
const runTimeoutMs = 30_000;

/** One AG-UI run: ms to RUN_STARTED and to the stream's end, or why it could not be measured. */
async function aguiRun(url: string, runId: string): Promise<{ started: number; ended: number } | { failed: string }> {
  const body = { threadId: '', runId, tools: [], context: [], messages: [{ id: 'm1', role: 'user', content: 'hello' }] };
  const t0 = performance.now();
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(body), signal: AbortSignal.timeout(runTimeoutMs) });
  } catch (error) {
    return { failed: `the request failed (${(error as Error).message})` };
  }
  if (response.status !== 200 || !response.body) return { failed: `POST /api/agui/<address> answered ${response.status} ${(await response.text()).slice(0, 160)}` };
  let started: number | undefined;
  let pending = '';
  const decoder = new TextDecoder();
  try {
    const reader = response.body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      pending += decoder.decode(read.value, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (started !== undefined || !line.startsWith('data:')) continue;
        try {
          if ((JSON.parse(line.slice(5)) as { type?: string }).type === 'RUN_STARTED') started = performance.now() - t0;
        } catch { /* not JSON: not the event */ }
      }
    }
  } catch (error) {
    if (started === undefined) return { failed: `the stream broke before RUN_STARTED (${(error as Error).message})` };
  }
  if (started === undefined) return { failed: 'the stream ended without a RUN_STARTED event' };
  return { started, ended: performance.now() - t0 };
}

/** Milliseconds to the answer's headers of `GET /api/health` (its first byte). */
async function healthFirstByte(base: string): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(`${base}/api/health`);
  const took = performance.now() - t0;
  await response.arrayBuffer();
  return took;
}

/** Part 3's headline figures (ms, medians): RUN_STARTED and the health first byte measured beside it. */
export interface AguiFigures { startedP50: number; healthP50: number }

/**
 * Prints part 3 through `print`. `createConnection` registers the public AG-UI connection the bench agent's chat trigger names
 * and gives its URL (or the CLI's error). @returns the headline figures, or undefined when the runs could not be
 * measured
 */
export async function benchAgui(
  product: RunningProduct, createConnection: () => { url?: string; error?: string }, runs: number,
  print: (line: string) => void,
): Promise<AguiFigures | undefined> {
  print(`\n3. AG-UI time to RUN_STARTED, ${runs} sequential runs after 3 warm-ups (ms), against the first byte of GET /api/health`);
  const notMeasured = (reason: string) => {
    print(`${'POST /api/agui/<address> → RUN_STARTED'.padEnd(42)} not measured: ${reason}`);
    return undefined;
  };
  const created = createConnection();
  if (!created.url) return notMeasured(`the AG-UI connection could not be created (${created.error})`);
  for (let i = 0; i < 3; i += 1) {
    const warm = await aguiRun(created.url, `warm-${i + 1}`);
    if ('failed' in warm) return notMeasured(warm.failed);
    await healthFirstByte(product.url);
  }
  const started: number[] = []; const ended: number[] = []; const health: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const run = await aguiRun(created.url, `r${i + 1}`);
    if ('failed' in run) return notMeasured(`run ${i + 1}: ${run.failed}`);
    started.push(run.started);
    ended.push(run.ended);
    health.push(await healthFirstByte(product.url));
  }
  const line = (label: string, values: number[]) => `${label.padEnd(42)} ${quantile(values, 0.5).toFixed(2).padStart(8)} ${quantile(values, 0.99).toFixed(2).padStart(8)}`;
  print(`${'what'.padEnd(42)} ${'p50'.padStart(8)} ${'p99'.padStart(8)}`);
  print(line('GET /api/health, first byte (baseline)', health));
  print(line('POST /api/agui/<address> → RUN_STARTED', started));
  print(line('… → end of the run (scripted model)', ended));
  const figures = { startedP50: quantile(started, 0.5), healthP50: quantile(health, 0.5) };
  const ratio = figures.startedP50 / figures.healthP50;
  print(`ratio RUN_STARTED / health first byte: ${ratio.toFixed(2)}× the p50 (target ≤ 4)`);
  return figures;
}
