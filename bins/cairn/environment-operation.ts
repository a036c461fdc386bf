/**
 * Environment operations from the command line: `POST …/<kind>` answers `202 {operation}` (queued); the
 * command then reads `GET /api/agents/:agent/operations/:id` every 300 ms until the operation ends
 * (at most 120 s), as a member would wait for it.
 *
 * Source: docs/decisions.md D7 § Agents and environments (queued environment operations), § Operators.
 */
import { callApi, CliError, type ApiTarget } from './api-client.ts';

/** A located problem of a refused publish, as the operation's error carries it. */
export interface OperationProblem { file: string; line: number; column: number; key: string; message: string }

/** An operation as the API shows it (the fields the command reads). */
export interface OperationAnswer<R> {
  id: string;
  kind: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  error: { code: string; message: string; problems?: OperationProblem[] } | null;
  result: R | null;
}

/** How often the command looks, and how long it waits at most, ms. */
export const operationPollMs = 300;
export const operationWaitMs = 120_000;

/**
 * Asks for operation `kind` on an environment and waits for it to end.
 * @param envPath - `/api/agents/<agent>/environments/<env>`
 * @returns the ended operation (`succeeded` with `result`, or `failed` with `error`)
 * @throws CliError when the request is refused (403/404/400/503: the API's message and code), or when the
 *   operation has not ended after {@link operationWaitMs} (is a dispatcher running?)
 */
export async function runEnvironmentOperation<R>(target: ApiTarget, envPath: string, kind: string, body?: unknown): Promise<OperationAnswer<R>> {
  const { operation } = await callApi<{ operation: OperationAnswer<R> & { agentId: string } }>(target, 'POST', `${envPath}/${kind}`, body);
  const path = `/api/agents/${encodeURIComponent(operation.agentId)}/operations/${encodeURIComponent(operation.id)}`;
  const deadline = Date.now() + operationWaitMs;
  let current: OperationAnswer<R> = operation;
  while (current.status === 'queued' || current.status === 'running') {
    if (Date.now() >= deadline) {
      throw new CliError(`the ${kind} operation ${operation.id} is still ${current.status} after ${operationWaitMs / 1000} s: is a dispatcher running? GET ${path} shows how it ends`);
    }
    await new Promise((resolve) => setTimeout(resolve, operationPollMs));
    current = (await callApi<{ operation: OperationAnswer<R> }>(target, 'GET', path)).operation;
  }
  return current;
}
