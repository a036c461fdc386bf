/**
 * The AG-UI endpoint of incoming connections, `POST /api/agui/<address>` (and its CORS preflight): a RunAgentInput
 * in, an AG-UI event stream out (server-sent events, or the protocol's binary encoding when Accept asks for it).
 * An address that serves no AG-UI connection, or whose connection no chat trigger of the published build names,
 * is 404. The caller is admitted by the connection's mode or as a member by their own sign-in (rules 1–2); an
 * origin not listed is refused (403) before anything starts. Calls per minute per caller and per endpoint count
 * only runs that would start a turn (429 with Retry-After). Everything refused is refused before the stream
 * starts, with `{error: {code, message}}`: 400 for a body that is not a RunAgentInput or has no user message,
 * 409 while a turn runs or a decision is pending, 429 over a rate or a spend cap. A fresh chat's writes go after
 * RUN_STARTED; one that fails then ends the stream with RUN_ERROR carrying that code and message (D24 § 3).
 *
 * Source: spec/platform-service.md § Endpoints (the /api/agui row), § AG-UI request, § Stream and custom events,
 * § Incoming connection authentication, § Errors, § Limits (30 per caller / 300 per endpoint by default);
 * docs/decisions.md D8 § Endpoints (AG-UI), D24 § 3.
 */
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import { Elysia } from 'elysia';
import type { RedisConnection } from '../../core/adapters/redis/open-redis.ts';
import { startAguiRun, type AguiRunDeps } from '../../core/connection/agui-runs.ts';
import type { AguiRun, AguiRunInput } from '../../core/connection/agui-run-model.ts';
import { servedChat } from '../../core/connection/agui-served.ts';
import { streamRun, type AguiStreamDeps } from '../../core/connection/agui-stream.ts';
import { admitCaller, connectionByAddress, type AdmissionDeps } from '../../core/connection/index.ts';
import type { Logger } from '../../core/ports/logger.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import { corsHeaders, endpointLimiters, endpointNotFound, endpointRequestFacts, preflight, withHeaders, type MemberSignIn } from './endpoint-rate.ts';
import { errorToResponse, json, maxJsonBytes, readBody } from './http-helpers.ts';

/** What the AG-UI endpoint needs. */
export interface AguiRouteDeps extends MemberSignIn {
  /** The run's use cases (the endpoint's counters are made here, from `rateRedis`). */
  runs: Omit<AguiRunDeps, 'endpointRates'> & Omit<AguiStreamDeps, 'docs'>;
  admission: AdmissionDeps;
  /** Counters live here when given (the shared queue store), else in this process. */
  rateRedis?: RedisConnection;
  /** The client address of a request (the request rules' view, trusted proxies applied). */
  clientAddress(request: Request): string | undefined;
  logger: Logger;
}

/** The body as the platform reads it. @throws PlatformError `invalid_json` or `invalid_argument` (400) naming up to 3 problems */
export function parseRunInput(bytes: Uint8Array): AguiRunInput {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new PlatformError('invalid_json', 'The body is not valid JSON: send a RunAgentInput {threadId, runId, messages, tools, context}.', { status: 400 });
  }
  const parsed = RunAgentInputSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
    throw new PlatformError('invalid_argument', `The body is not a RunAgentInput: ${problems}.`, { status: 400 });
  }
  return parsed.data as unknown as AguiRunInput;
}

/** Mounts the endpoint. */
export function aguiRoutes(deps: AguiRouteDeps) {
  // Built once for every request: the counters, and a fresh chat's writes let RUN_STARTED out first (D24 § 3).
  const runs = { ...deps.runs, endpointRates: endpointLimiters(deps.rateRedis), flush: nextTurnOfLoop, logger: deps.logger };
  const aguiConnection = async (address: string) => {
    const connection = await connectionByAddress(deps.runs, address);
    return connection?.protocol === 'agui' ? connection : null;
  };
  return new Elysia()
    .options('/api/agui/:address', async ({ request, params }) => {
      const connection = await aguiConnection(params.address);
      return connection ? preflight(connection, request, 'POST, OPTIONS') : endpointNotFound();
    })
    .post('/api/agui/:address', async ({ request, params, server }) => {
      let cors: Record<string, string> = {};
      try {
        const connection = await aguiConnection(params.address);
        if (!connection) return endpointNotFound();
        cors = corsHeaders(connection, request.headers.get('origin'));
        const admission = await admitCaller(deps.admission, connection, endpointRequestFacts(deps, request));
        if (!admission.admitted) {
          const refused = json({ error: { code: admission.code, message: admission.message } }, admission.status);
          if (admission.status === 401) refused.headers.set('www-authenticate', 'Bearer');
          return withHeaders(refused, cors);
        }
        const input = parseRunInput(await readBody(request, maxJsonBytes));
        const served = await servedChat(runs, connection);
        if (!served) return endpointNotFound();
        const run = await startAguiRun(runs, connection, admission.caller, { served, input });
        return aguiStreamResponse(runs, run, { request, server, headers: cors, logger: deps.logger, what: connection.identifier });
      } catch (error) {
        return withHeaders(errorToResponse(error, deps.logger), cors);
      }
    }, { parse: 'none' });
}

/**
 * Resolves on the event loop's next turn, once the server could write what the stream enqueued: the embedded store
 * runs on this thread, so a fresh chat's writes would otherwise hold RUN_STARTED back (docs/decisions.md D24 § 3).
 */
const nextTurnOfLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Where {@link aguiStreamResponse} streams to, and what it logs a failed stream under. */
export interface AguiStreamTarget {
  request: Request;
  /** The server of the request (its idle timeout is lifted for the stream); absent in tests. */
  server?: { timeout(request: Request, seconds: number): void } | null;
  /** Headers added to the answer (CORS). */
  headers: Record<string, string>;
  logger: Logger;
  /** What a failed stream's log line names (a connection's identifier, or a design chat). */
  what: string;
}

/**
 * The AG-UI event stream of a started run: server-sent events, or the protocol's binary encoding when Accept asks
 * for it, with keep-alive comments while the run is quiet; a failed stream ends with RUN_ERROR `stream_failed`.
 * Shared by the AG-UI endpoint and the design endpoint (bins/api/design-routes.ts).
 */
export function aguiStreamResponse(runs: AguiStreamDeps, run: AguiRun, target: AguiStreamTarget): Response {
  const { request, logger } = target;
  // A run's stream may be quiet for longer than the server's idle timeout (30 s) while its turn waits or the
  // model thinks: it ends with the run (RUN_FINISHED or RUN_ERROR) or when the client goes, not on silence.
  target.server?.timeout(request, 0);
  const encoder = new EventEncoder({ accept: request.headers.get('accept') ?? undefined });
  const abort = new AbortController();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => {
      heartbeat = startHeartbeat(encoder.getContentType(), (bytes) => controller.enqueue(bytes));
      void streamRun(runs, run, (event) => controller.enqueue(encoder.encodeBinary(event)), abort.signal)
        .catch((error: Error) => {
          logger.error({ err: error.message, connection: target.what }, 'AG-UI stream failed');
          controller.enqueue(encoder.encodeBinary({ type: 'RUN_ERROR', message: 'The stream failed unexpectedly; the chat carries on. Send the next message on the same thread to see where it stands.', code: 'stream_failed' } as never));
        })
        .finally(() => {
          clearInterval(heartbeat);
          try { controller.close(); } catch { /* already closed */ }
        });
    },
    cancel: () => { clearInterval(heartbeat); abort.abort(); },
  });
  return new Response(body, { headers: { ...target.headers, 'content-type': encoder.getContentType(), 'cache-control': 'no-store', 'x-accel-buffering': 'no' } });
}

/** Seconds between the comment lines that keep a quiet event stream open through the front proxy's upstream timeout. */
const HEARTBEAT_SECONDS = 15;
const heartbeatLine = new TextEncoder().encode(': keep-alive\n\n');

/**
 * Sends an SSE comment line every {@link HEARTBEAT_SECONDS} on a `text/event-stream` answer (clients ignore comments),
 * so a run whose turn waits in the queue or whose model thinks for minutes is not ended by an idle timeout on the
 * way; the binary encoding has no comment form and gets none (its request has no idle timeout at the API).
 * @returns the interval to clear when the stream ends, or undefined
 */
function startHeartbeat(
  contentType: string, send: (bytes: Uint8Array) => void,
): ReturnType<typeof setInterval> | undefined {
  if (!contentType.startsWith('text/event-stream')) return undefined;
  return setInterval(() => {
    try { send(heartbeatLine); } catch { /* the stream has closed */ }
  }, HEARTBEAT_SECONDS * 1000);
}
