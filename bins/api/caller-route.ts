/**
 * The handler wrapper of the signed-in JSON routes (organizations, agents): refuses any query
 * parameter, resolves and prepares the caller, and answers errors in the API's JSON shape.
 *
 * Source: spec/platform-service.md § Endpoints, § Errors.
 */
import type { Logger } from '../../core/ports/logger.ts';
import { errorToResponse } from './http-helpers.ts';
import { NoQuery, readQuery } from './query-params.ts';

/** What the wrapper needs: the caller of a request, its preparation, and a logger for unexpected errors. */
export interface CallerRouteDeps<C> {
  logger: Logger;
  /** The signed-in caller of `request`. @throws PlatformError `unauthorized` (401) */
  callerOf(request: Request): C;
  /** Runs before every handler for the caller. */
  prepare(caller: C): Promise<void>;
}

/** What a wrapped handler receives. */
export interface CallerContext<C, P> {
  request: Request;
  params: P;
  caller: C;
  /** The server of the request (a streaming answer lifts its idle timeout); absent in tests. */
  server?: { timeout(request: Request, seconds: number): void } | null;
}

/**
 * Makes route handlers from `(context) => Response` functions.
 * @param answerError - an answer of its own for some errors (e.g. 422 with located problems);
 *   undefined falls through to {@link errorToResponse}
 */
export function callerRoutes<C>(env: CallerRouteDeps<C>, answerError: (error: unknown) => Response | undefined = () => undefined) {
  type Context<P> = { request: Request; params: P; server?: CallerContext<C, P>['server'] };
  return <P>(handler: (ctx: CallerContext<C, P>) => Promise<Response>) => async ({ request, params, server }: Context<P>): Promise<Response> => {
    try {
      readQuery(request, NoQuery);
      const caller = env.callerOf(request);
      await env.prepare(caller);
      return await handler({ request, params, caller, server });
    } catch (error) {
      return answerError(error) ?? errorToResponse(error, env.logger);
    }
  };
}
