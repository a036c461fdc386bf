/**
 * The Ids adapter: SHA-256 against the FIPS 180-2 test vectors, for text and bytes alike; ids are
 * 26 base32 characters and differ.
 */
import { describe, expect, it } from 'vitest';
import { cryptoIds } from './system.ts';

describe('cryptoIds', () => {
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [
      'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    ],
  ])('hashes %j as text and as bytes', async (text, digest) => {
    expect(await cryptoIds.sha256Hex(text)).toBe(digest);
    expect(await cryptoIds.sha256Hex(new TextEncoder().encode(text))).toBe(digest);
  });

  it('makes distinct 26-character base32 ids', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => cryptoIds.newId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[a-z2-7]{26}$/);
  });
});
