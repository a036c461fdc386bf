/**
 * Clock and Ids on the runtime's own clock and Web Crypto (present on Node, Bun and Deno).
 */
import type { Clock } from '../../ports/clock.ts';
import type { Ids } from '../../ports/ids.ts';

/** The system clock. */
export const systemClock: Clock = { now: () => new Date() };

/** Ids from Web Crypto: 128-bit random ids in base32 (26 characters, lower case). */
export const cryptoIds: Ids = {
  newId: () => toBase32(crypto.getRandomValues(new Uint8Array(16))),
  randomBytes: (byteLength) => crypto.getRandomValues(new Uint8Array(byteLength)),
  sha256Hex: async (data) => {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
    return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
  },
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
