/**
 * Record and replay of model calls: a cassette holds each call's request fingerprint and the events the model
 * answered with. {@link recordingProvider} wraps a ModelProvider and records every call that finishes;
 * {@link replayingProvider} answers from a cassette alone (no model is called: deterministic, offline, free), and a
 * request the recording does not hold fails with where it diverges (the first message that differs from the
 * closest recorded call). The same request asked twice is answered in recorded order; calls running at once (child
 * sessions) match by fingerprint, not by arrival.
 *
 * Source: issue "Evaluations" § Record and replay; docs/architecture.md § Ports and adapters (ModelProvider).
 */
import type { ModelEvent, ModelMessage, ModelProvider, ModelRequest } from '../ports/model-provider.ts';
import { PlatformError } from '../ports/platform-error.ts';

/** Version of the cassette format. */
export const CASSETTE_VERSION = 1 as const;

/** One recorded call: the request's fingerprint, its messages' digests (to say where a replay diverges), answers. */
export interface CassetteCall {
  /** Digest of the model id, the messages and the tools offered ({@link requestFingerprint}). */
  fingerprint: string;
  /** The model id the request named (undefined: the default). */
  model?: string;
  /** One digest per message, in order. */
  messages: string[];
  /** The answer: text deltas joined into one text event, the tool calls, the finish (with its usage). */
  events: ModelEvent[];
}

/** A cassette: the calls of one evaluation run, in the order they finished. */
export interface Cassette {
  version: typeof CASSETTE_VERSION;
  calls: CassetteCall[];
}

/** An empty cassette. */
export const emptyCassette = (): Cassette => ({ version: CASSETTE_VERSION, calls: [] });

/** A 53-bit string hash (cyrb53), as 14 hex digits: enough to tell requests apart, not a security digest. */
export function digest(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

/** JSON with object keys sorted, so equal values give equal text whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The digest of one message. Tool call ids are left out (providers make new ones each time). */
const messageDigest = (message: ModelMessage): string => {
  if (message.role === 'assistant') {
    const calls = (message.toolCalls ?? []).map((c) => ({ name: c.name, input: c.input }));
    return digest(canonical({ role: message.role, content: message.content, calls }));
  }
  if (message.role === 'tool') {
    return digest(canonical({ role: 'tool', results: message.results.map((r) => ({ ...r, callId: undefined })) }));
  }
  return digest(canonical(message));
};

/** The fingerprint of a request: its model id, messages and offered tools (not its cache setting or signal). */
export function requestFingerprint(request: ModelRequest): { fingerprint: string; messages: string[] } {
  const messages = request.messages.map(messageDigest);
  const tools = (request.tools ?? []).map((t) => digest(canonical(t)));
  return { fingerprint: digest(canonical({ model: request.model ?? null, messages, tools })), messages };
}

/** Text deltas joined into one event (a replay need not stream as the model did). */
function compact(events: ModelEvent[]): ModelEvent[] {
  const text = events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
  return [...(text ? [{ type: 'text' as const, text }] : []), ...events.filter((e) => e.type !== 'text')];
}

/**
 * `inner` recording into `cassette`: each call that finishes is appended with its answer (a call that fails or is
 * aborted is not recorded; its replay then diverges there, as a re-run would call the model again).
 */
export function recordingProvider(inner: ModelProvider, cassette: Cassette): ModelProvider {
  return {
    async *stream(request) {
      const { fingerprint, messages } = requestFingerprint(request);
      const events: ModelEvent[] = [];
      for await (const event of inner.stream(request)) {
        events.push(event);
        yield event;
      }
      cassette.calls.push({
        fingerprint,
        ...(request.model ? { model: request.model } : {}),
        messages,
        events: compact(events),
      });
    },
  };
}

/** Where a request diverges from the closest recorded call (the one sharing the longest run of first messages). */
export function divergence(cassette: Cassette, request: ModelRequest, messages: string[]): string {
  let best: { call: CassetteCall; same: number } | undefined;
  for (const call of cassette.calls) {
    let same = 0;
    while (same < messages.length && same < call.messages.length && call.messages[same] === messages[same]) same += 1;
    if (best === undefined || same > best.same) best = { call, same };
  }
  if (best === undefined) return 'the cassette holds no call';
  const at = best.same;
  if (at < messages.length && at < best.call.messages.length) {
    return `message ${at + 1} (${request.messages[at]!.role}) differs from the recording`;
  }
  if (at < messages.length) return `message ${at + 1} (${request.messages[at]!.role}) was not in the recording`;
  if (at < best.call.messages.length) return `the recording had ${best.call.messages.length - at} more message(s)`;
  return best.call.model !== request.model ? 'the model differs from the recording' : 'the offered tools differ';
}

/**
 * A ModelProvider answering from `cassette` alone. Each recorded call answers once; the same request asked again
 * takes the next recording of it.
 * @throws PlatformError `cassette_diverged` (while iterating) for a request the cassette does not hold, saying where
 *   it diverges and to record the run again
 */
export function replayingProvider(cassette: Cassette): ModelProvider {
  const waiting = new Map<string, CassetteCall[]>();
  for (const call of cassette.calls) waiting.set(call.fingerprint, [...waiting.get(call.fingerprint) ?? [], call]);
  let asked = 0;
  return {
    async *stream(request) {
      asked += 1;
      const { fingerprint, messages } = requestFingerprint(request);
      const call = waiting.get(fingerprint)?.shift();
      if (call === undefined) {
        throw new PlatformError(
          'cassette_diverged',
          `model call ${asked} of the replay is not in the recording: ${divergence(cassette, request, messages)}; ` +
            'the prompt, the tools or an earlier answer changed: record the run again (--record)',
        );
      }
      yield* call.events;
    },
  };
}
