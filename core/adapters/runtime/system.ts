/**
 * Clock and Ids on the runtime's own clock, Web Crypto's random values and node:crypto's SHA-256
 * (all present on Node, Bun and Deno). SHA-256 is computed synchronously: it runs on every endpoint
 * request (token lookup, scope names), where Web Crypto's digest costs a trip through the runtime's
 * thread pool (about 9 µs alone, and up to several hundred µs on a busy event loop) for a 1 µs hash.
 */
import { createHash } from 'node:crypto';
import type { Ids } from '../../ports/ids.ts';

export { systemClock } from './system-clock.ts';

/** Ids from Web Crypto: 128-bit random ids in base32 (26 characters, lower case). */
export const cryptoIds: Ids = {
  newId: () => toBase32(crypto.getRandomValues(new Uint8Array(16))),
  randomBytes: (byteLength) => crypto.getRandomValues(new Uint8Array(byteLength)),
  sha256Hex: async (data) => createHash('sha256').update(data).digest('hex'),
};

const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';

function toBase32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}
