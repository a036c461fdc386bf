/**
 * A bounded stop of an HTTP server (the API, semantic-mcp): it takes no new connection at once, lets requests in
 * flight end for a grace, then closes the connections still open (a stalled upload, a client that keeps a stream
 * open), so the process exits well within the stop timeout of 120 s instead of waiting on its slowest client.
 *
 * Source: platform-service.md § Limits (deployment guidance: stop timeout 120 s).
 */

/** An app whose `stop(true)` also closes the connections still open (Elysia's, on Bun or Node). */
export interface StoppableServer {
  stop(closeActiveConnections?: boolean): Promise<unknown>;
}

/** How long requests in flight may take to end once a stop began (ms): 5 s. */
export const STOP_SERVER_GRACE_MS = 5_000;

/** Stops `app`: in-flight requests get `graceMs` (default {@link STOP_SERVER_GRACE_MS}), then connections close. */
export async function stopServer(app: StoppableServer, graceMs = STOP_SERVER_GRACE_MS): Promise<void> {
  const gentle = app.stop(false);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), graceMs);
  });
  const ended = await Promise.race([gentle.then(() => true), late]);
  clearTimeout(timer);
  if (!ended) await app.stop(true);
  await gentle;
}
