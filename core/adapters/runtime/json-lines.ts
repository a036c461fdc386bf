/**
 * Newline-delimited JSON over a byte stream (one JSON message per line, UTF-8; JSON.stringify never
 * emits a raw line break). Used by the semantic query processes and the worker channel.
 *
 * Source: spec/semantic-query-service.md § Limits; spec/platform-service.md § Rules 6.
 */
import type { Readable } from 'node:stream';

/**
 * Calls `onMessage` with each line of `input` parsed as JSON (text decoded as UTF-8 across chunk
 * boundaries) and `onEnd` once the stream ends. A line that is not JSON ends the stream's use:
 * `onEnd` receives the parse error. Each chunk is scanned once (long lines cost linear time).
 * With `maxLineChars`, a line longer than that ends the stream's use as soon as it is seen (what was buffered
 * is dropped, further data ignored): `onEnd` receives a {@link LineTooLongError}.
 *
 * Source: spec/semantic-query-service.md § Limits; spec/platform-service.md § Rules 6
 */
export function readMessages<T>(
  input: Readable,
  onMessage: (message: T) => void,
  onEnd: (error?: Error) => void,
  options: { maxLineChars?: number } = {},
): void {
  const parts: string[] = [];
  const limit = options.maxLineChars ?? Number.POSITIVE_INFINITY;
  let buffered = 0;
  let ended = false;
  const end = (error?: Error): void => {
    if (ended) return;
    ended = true;
    onEnd(error);
  };
  const line = (text: string): void => {
    if (text.length === 0 || ended) return;
    let message: T;
    try {
      message = JSON.parse(text) as T;
    } catch (error) {
      end(new Error(`not a JSON message: ${(error as Error).message}`));
      return;
    }
    onMessage(message);
  };
  input.setEncoding('utf8');
  const tooLong = (): boolean => {
    if (buffered <= limit) return false;
    parts.length = 0;
    end(new LineTooLongError(limit));
    return true;
  };
  input.on('data', (chunk: string) => {
    if (ended) return;
    let start = 0;
    for (let newline = chunk.indexOf('\n'); newline >= 0; newline = chunk.indexOf('\n', start)) {
      buffered += newline - start;
      if (tooLong()) return;
      parts.push(chunk.slice(start, newline));
      const text = parts.join('');
      parts.length = 0;
      buffered = 0;
      line(text);
      start = newline + 1;
    }
    buffered += chunk.length - start;
    if (tooLong()) return;
    if (start < chunk.length) parts.push(chunk.slice(start));
  });
  input.on('end', () => end());
  input.on('error', (error: Error) => end(error));
}

/**
 * A line longer than the reader's `maxLineChars`.
 *
 * Source: spec/platform-service.md § Rules 6
 */
export class LineTooLongError extends Error {
  constructor(readonly maxLineChars: number) {
    super(`a line is longer than ${maxLineChars} characters`);
    this.name = 'LineTooLongError';
  }
}
