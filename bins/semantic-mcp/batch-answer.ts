/**
 * The answer to one POST of an MCP endpoint (one call or a JSON-RPC batch of up to 100), bounded as a whole:
 * each response is serialised once, as soon as it is known, and added while the answer stays within
 * {@link maxAnswerBytes}. The first response that would pass it is replaced by a short error, and so is every
 * later call, which is not run at all. Room for those errors is kept from the start, so the whole answer never
 * passes the cap (unless the client's own ids alone do).
 *
 * Source: spec/semantic-query-service.md § Limits; docs/decisions.md D18 § 3 (bound the whole answer).
 */
import { maxResultBytes } from '../../core/semantic/tools/tool-definitions.ts';
import { rpcErrors, type JsonRpcCall, type JsonRpcResponse } from './json-rpc.ts';

/**
 * Bytes of one answer (UTF-8 JSON, brackets and commas included): 16 MiB (16,777,216 bytes), room for three
 * results at the 4 MiB per-call cap of row data and many small ones, while two batches at once stay far below the
 * service's memory (an unbounded batch of 100 such calls answered 801 MB and took the process to 2.0 GB).
 */
export const maxAnswerBytes = 16 * 1024 * 1024;

/** The text of a call left out of an answer at its cap. */
export const answerCapMessage = `Left out: the answer to this request reached its cap of ${mib(maxAnswerBytes)} `
  + `(${maxAnswerBytes.toLocaleString('en-US')} bytes of JSON), so this call and the ones after it in the batch were `
  + `not answered. Send fewer calls per request, or narrow the queries (each result may carry up to `
  + `${mib(maxResultBytes)} of rows).`;

/** The answer being built for the calls of one POST. */
export interface BatchAnswer {
  /** True once a response did not fit: every later call gets the cap error without running. */
  readonly full: boolean;
  /** How many responses were added whole. */
  readonly answered: number;
  /** Adds `response` to `call` (with an id); the cap error instead when it would take the answer past the cap. */
  add(call: JsonRpcCall, response: JsonRpcResponse): void;
  /** Adds the cap error for `call`, which is not run (nothing for a notification). */
  skip(call: JsonRpcCall): void;
  /** The HTTP answer: the responses as a JSON array for a batch, the one response otherwise, 202 for none. */
  respond(batch: boolean): Response;
}

/**
 * An answer for `calls` (the body's calls, in order) capped at `limit` bytes (default {@link maxAnswerBytes}).
 * A tools/call left out answers a tool error (`isError`, the agent reads it); any other method a JSON-RPC error.
 */
export function batchAnswer(calls: JsonRpcCall[], limit = maxAnswerBytes): BatchAnswer {
  const parts: string[] = [];
  let bytes = 0;
  let answered = 0;
  let full = false;
  // Room kept for the cap error of every call still to answer, plus the array's brackets and commas.
  const errors = new Map(calls.map((call) => [call, capErrorText(call)]));
  let reserve = calls.length + 1;
  for (const error of errors.values()) reserve += error?.bytes ?? 0;
  const errorOf = (call: JsonRpcCall) => (errors.has(call) ? errors.get(call) : capErrorText(call));
  const release = (call: JsonRpcCall) => { reserve -= errorOf(call)?.bytes ?? 0; };
  const addError = (call: JsonRpcCall) => {
    const error = errorOf(call);
    if (!error) return;
    parts.push(error.text);
    bytes += error.bytes;
  };
  return {
    get full() { return full; },
    get answered() { return answered; },
    add(call, response) {
      release(call);
      const text = JSON.stringify(response);
      const size = Buffer.byteLength(text);
      if (!full && bytes + size + reserve <= limit) {
        parts.push(text);
        bytes += size;
        answered += 1;
        return;
      }
      full = true;
      addError(call);
    },
    skip(call) {
      release(call);
      full = true;
      addError(call);
    },
    respond(batch) {
      if (parts.length === 0) return new Response(null, { status: 202 });
      const body = batch ? `[${parts.join(',')}]` : parts[0];
      return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    },
  };
}

/** The serialised cap error of `call` and its UTF-8 length; undefined for a notification (no id, no answer). */
function capErrorText(call: JsonRpcCall): { text: string; bytes: number } | undefined {
  if (call.id === undefined) return undefined;
  const response: JsonRpcResponse = call.method === 'tools/call'
    ? { jsonrpc: '2.0', id: call.id, result: { isError: true, content: [{ type: 'text', text: answerCapMessage }] } }
    : { jsonrpc: '2.0', id: call.id, error: { code: rpcErrors.server, message: answerCapMessage } };
  const text = JSON.stringify(response);
  return { text, bytes: Buffer.byteLength(text) };
}

function mib(bytes: number): string {
  return `${bytes / (1024 * 1024)} MiB`;
}
