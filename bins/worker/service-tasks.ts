/**
 * Call-worker tasks of polling and callback triggers. Each asks the broker for the one service call it was started
 * for (`service.call` with `{collection, tool, input}`; the broker refuses any other call) and reads the answer here,
 * inside the worker, since a service's answer is data the platform does not control:
 * - `poll`: the trigger's tool with its arguments → `{items: [{id, item}]}` (see ./poll-items.ts);
 * - `subscribe` (the lifecycle step activating a callback trigger): the collection's `subscribe` tool with
 *   `{event, arguments, callbackUrl}` → `{subscription}` (the tool's output, kept on the address record);
 * - `callback` (a callback run): the collection's `callback` tool with `{event, request}` →
 *   `{response?: {status, body, contentType}, firings: [{id?, payload}]}` (core/trigger/callback-answer.ts).
 * A tool that answers with an error fails the task with the service's own text.
 *
 * Source: spec/platform-service.md § Rules 4, 6 (call workers run a poll, a callback run, a trigger lifecycle step);
 * docs/decisions.md D8 (polling and callback triggers).
 */
import { PlatformError } from '../../core/ports/platform-error.ts';
import type { WorkerBroker } from '../../core/ports/worker.ts';
import { callbackAnswer, type CallbackAnswer } from '../../core/trigger/callback-answer.ts';
import { polledItems } from './poll-items.ts';

/** The payload of every service task: the one call the broker makes for it. */
export interface ServiceTaskPayload {
  collection: string;
  tool: string;
  input: Record<string, unknown>;
}

function payloadOf(payload: unknown): ServiceTaskPayload {
  const p = payload as Partial<ServiceTaskPayload> | null;
  if (typeof p?.collection !== 'string' || typeof p.tool !== 'string' || p.input === null || typeof p.input !== 'object') {
    throw new PlatformError('invalid_payload', 'A service task needs {collection, tool, input}.');
  }
  return p as ServiceTaskPayload;
}

/** Makes the task's call through the broker; the tool's output, or a failure with the service's reason. */
async function callService(payload: unknown, broker: WorkerBroker, code: string): Promise<unknown> {
  const call = payloadOf(payload);
  const result = await broker.request('service.call', call) as { output: unknown; isError: boolean };
  if (result.isError) throw new PlatformError(code, typeof result.output === 'string' ? result.output : `The ${call.collection} service's ${call.tool} tool failed.`);
  return result.output;
}

/** The `poll` task. @throws PlatformError `poll_failed`, `poll_result_unreadable` */
export async function runPollTask(payload: unknown, broker: WorkerBroker): Promise<unknown> {
  return { items: polledItems(await callService(payload, broker, 'poll_failed')) };
}

/** The `subscribe` task. @throws PlatformError `subscribe_failed` */
export async function runSubscribeTask(payload: unknown, broker: WorkerBroker): Promise<unknown> {
  return { subscription: (await callService(payload, broker, 'subscribe_failed')) ?? null };
}

/** The `callback` task. @throws PlatformError `callback_failed`, `callback_answer_unreadable` */
export async function runCallbackTask(payload: unknown, broker: WorkerBroker): Promise<CallbackAnswer> {
  return callbackAnswer(await callService(payload, broker, 'callback_failed'));
}
