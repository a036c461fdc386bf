/**
 * The load of a chaos test, sent the way real senders do while the processes behind them are killed:
 * - a webhook delivery is sent three times (a sender's retries), each send to either API, and each send is
 *   retried until it is acknowledged (202, taken or `duplicate`): a refused connection, a cut one, a 5xx or a
 *   429 is tried again on either API after a pause (100 ms doubling to 2 s), for up to 90 s;
 * - an AG-UI chat opens a fresh thread on either API and reads the event stream to its end; the run ends
 *   `finished` (RUN_FINISHED), `failed` (RUN_ERROR, or an error answer with a code), `cut` (the stream broke and
 *   the API serving it was killed meanwhile), `broken` (it broke, or ended without RUN_FINISHED or RUN_ERROR, with
 *   no kill of its API: a defect) or `hung` (no end within 240 s: a defect). A connection refused before any
 *   answer (the API was down) is tried again on either API.
 * Every request has a connection of its own, so no pooled socket of a killed process is reused.
 */
import { request } from 'node:http';
import type { ChaosSlot } from './chaos-cluster.ts';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)];
/** The wait before try `n` (1-based) after a refusal: 100 ms doubling to 2 s, with jitter. */
const backoff = (n: number) => Math.min(2_000, 100 * 2 ** Math.min(n - 1, 5)) * (0.5 + Math.random() * 0.5);

/** An answer read to its end, or as far as it came: `error` is set when the connection failed. */
interface Exchange {
  /** The status line's code; undefined when no answer came. */
  status?: number;
  text: string;
  /** The socket error's code (ECONNREFUSED, ECONNRESET, ...) or `timeout`. */
  error?: string;
  /** Milliseconds from the last byte received (or the request) to the end. */
  silentMs: number;
}

/**
 * POSTs `body` on a connection of its own (no pooled socket can outlive a killed process) and reads the answer
 * to its end; never throws.
 */
function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Exchange> {
  return new Promise((resolve) => {
    const exchange: Exchange = { text: '', silentMs: 0 };
    let lastByte = Date.now();
    const done = (error?: string) => resolve({
      ...exchange, silentMs: Date.now() - lastByte, ...(error ? { error: exchange.error ?? error } : {}),
    });
    const length = Buffer.byteLength(body);
    const options = { method: 'POST', agent: false, headers: { ...headers, 'content-length': length } };
    const req = request(url, options, (res) => {
      exchange.status = res.statusCode;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { exchange.text += chunk; lastByte = Date.now(); });
      res.on('end', () => done());
      res.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
      res.on('close', () => done(res.complete ? undefined : 'closed before its end'));
    });
    const timer = setTimeout(() => { exchange.error = 'timeout'; req.destroy(); }, timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
    req.on('close', () => clearTimeout(timer));
    req.end(body);
  });
}

/** What happened to one send of a delivery. */
export interface SendResult {
  /** true: 202 taken; false: 202 `duplicate`; undefined: never acknowledged within 90 s. */
  taken?: boolean;
  attempts: number;
  /** Answers other than 202 by status, and `connection` for refused or cut connections. */
  refusals: Record<string, number>;
}

/** What happened to one delivery's three sends. */
export interface DeliveryResult { deliveryId: string; sends: SendResult[] }

/**
 * Sends one webhook delivery three times, each to either API: the second and third sends start 0-1.5 s after
 * the first (as a sender's retries would), each retried until acknowledged.
 * @param path - the webhook address path, `/api/webhooks/<address>`
 */
export async function sendDelivery(
  apis: ChaosSlot[], path: string, token: string, deliveryId: string,
): Promise<DeliveryResult> {
  const body = JSON.stringify({ action: 'opened', delivery: deliveryId });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-delivery-id': deliveryId };
  const once = async (delayMs: number): Promise<SendResult> => {
    await pause(delayMs);
    const result: SendResult = { attempts: 0, refusals: {} };
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      result.attempts += 1;
      const answer = await post(`${pick(apis).url}${path}`, headers, body, 15_000);
      if (answer.status === 202 && answer.error === undefined) {
        result.taken = !(JSON.parse(answer.text) as { duplicate?: boolean }).duplicate;
        return result;
      }
      const why = answer.status === undefined ? 'connection' : String(answer.status);
      result.refusals[why] = (result.refusals[why] ?? 0) + 1;
      await pause(backoff(result.attempts));
    }
    return result;
  };
  return { deliveryId, sends: await Promise.all([once(0), once(Math.random() * 1_500), once(Math.random() * 1_500)]) };
}

/** How a chat run ended (see the module's note). */
export type ChatEnd = 'finished' | 'failed' | 'cut' | 'broken' | 'hung';

/** What happened to one chat run. */
export interface ChatResult {
  end: ChatEnd;
  /** The thread RUN_STARTED named, when the stream got that far. */
  threadId?: string;
  /** RUN_ERROR's code, or the error answer's status and code. */
  detail?: string;
  /** Connections refused before any answer (tried again). */
  refused: number;
}

/** Parses the `data:` lines of a server-sent event stream. */
function eventsOf(text: string): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    try { events.push(JSON.parse(line.slice(6)) as Record<string, unknown>); } catch { /* a line cut by a kill */ }
  }
  return events;
}

/**
 * Runs one chat on a fresh thread of the public AG-UI connection at `path` (`/api/agui/<address>`), on either API.
 */
export async function runChat(apis: ChaosSlot[], path: string, message: string): Promise<ChatResult> {
  const messages = [{ id: 'u1', role: 'user', content: message }];
  const body = JSON.stringify({ threadId: '', runId: 'chaos', tools: [], context: [], messages });
  const headers = { 'content-type': 'application/json', accept: 'text/event-stream' };
  for (let refused = 0; ;) {
    const api = pick(apis);
    const generation = api.generation;
    const answer = await post(`${api.url}${path}`, headers, body, 240_000);
    if (answer.error === 'timeout') return { end: 'hung', ...started(answer.text), refused };
    if (answer.status === undefined) {
      // No answer while the API was down or being killed: nothing was seen, try again (as a client would).
      if (api.generation !== generation || !api.ready) {
        refused += 1;
        await pause(backoff(refused));
        continue;
      }
      return { end: 'broken', detail: `no answer from a live API: ${answer.error}`, refused };
    }
    if (answer.status !== 200) {
      const code = errorCodeOf(answer.text);
      const detail = `${answer.status} ${code ?? 'without an error code'}`;
      return { end: code ? 'failed' : 'broken', detail, refused };
    }
    const last = eventsOf(answer.text).findLast((e) => e.type === 'RUN_FINISHED' || e.type === 'RUN_ERROR');
    if (last?.type === 'RUN_FINISHED') return { end: 'finished', ...started(answer.text), refused };
    if (last?.type === 'RUN_ERROR') {
      return { end: 'failed', ...started(answer.text), detail: String(last.code), refused };
    }
    const cut = api.generation !== generation;
    if (cut) return { end: 'cut', ...started(answer.text), refused };
    const silent = Math.round(answer.silentMs / 1000);
    const why = `stream ended: ${answer.error ?? 'no RUN_FINISHED'} after ${silent} s silent`;
    return { end: 'broken', ...started(answer.text), detail: why, refused };
  }
}

/** The `error.code` of a JSON error answer, if any. */
function errorCodeOf(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

function started(text: string): { threadId?: string } {
  const first = eventsOf(text).find((e) => e.type === 'RUN_STARTED');
  return first ? { threadId: String(first.threadId) } : {};
}
