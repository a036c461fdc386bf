/**
 * HTTP client of the `cairn` command: JSON calls to a running instance's /api routes.
 */

/** Where and how to reach the instance. */
export interface ApiTarget {
  /** Base URL, e.g. http://127.0.0.1:8080. */
  url: string;
  /** Bearer token where sign-in needs one. */
  token?: string;
}

/** A failed API call: the server's error code and message, or a connection failure. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Calls `method path` with an optional JSON body; returns the parsed JSON answer. @throws CliError with a one-line reason */
export async function callApi<T>(target: ApiTarget, method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return send<T>(target, path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** Sends raw bytes (a data file upload) with progress callbacks per chunk sent. */
export async function uploadBytes<T>(target: ApiTarget, path: string, bytes: Uint8Array, onProgress?: (sent: number) => void): Promise<T> {
  const chunkSize = 1024 * 1024;
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) { controller.close(); return; }
      const chunk = bytes.subarray(offset, Math.min(offset + chunkSize, bytes.byteLength));
      offset += chunk.byteLength;
      onProgress?.(offset);
      controller.enqueue(chunk);
    },
  });
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream', 'content-length': String(bytes.byteLength) };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  return send<T>(target, path, { method: 'PUT', headers, body: stream, duplex: 'half' } as RequestInit);
}

async function send<T>(target: ApiTarget, path: string, init: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(new URL(path, target.url), init);
  } catch (error) {
    throw new CliError(`cannot reach ${target.url}: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}. Is cairn running (scripts/start)? Use --url or CAIRN_URL.`);
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    throw new CliError(`${response.status} ${response.statusText} from ${path}: the answer is not JSON.`);
  }
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; message?: string } }).error;
    throw new CliError(`${error?.message ?? `${response.status} ${response.statusText}`}${error?.code ? ` (${error.code})` : ''}`);
  }
  return parsed as T;
}
