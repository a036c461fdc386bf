import { describe, expect, it } from 'vitest';
import { base64Bytes, commaList, decodeBase64, oneOf, trueOrFalse } from './env-values.ts';
import { hostAndPort } from './net-values.ts';

describe('value helpers', () => {
  it('decodes standard and URL-safe base64, padded or not, and rejects anything else', () => {
    const bytes = Uint8Array.from([251, 255, 191, 0, 1]);
    expect(decodeBase64('+/+/AAE=')).toEqual(bytes);
    expect(decodeBase64('-_-_AAE')).toEqual(bytes);
    for (const bad of ['+/+/AAE==', 'a', 'ab$c', 'AB=C', 'AAE==']) expect(decodeBase64(bad)).toBeUndefined();
  });

  it('base64Bytes checks the decoded length', () => {
    const key = btoa('x'.repeat(32));
    expect(base64Bytes({ K: key }, 'K', { exactly: 32 })?.length).toBe(32);
    expect(() => base64Bytes({ K: btoa('x'.repeat(31)) }, 'K', { exactly: 32 })).toThrow(
      /^K must decode to exactly 32 bytes/,
    );
    expect(() => base64Bytes({ K: btoa('x'.repeat(31)) }, 'K', { atLeast: 32 })).toThrow(
      /^K must decode to at least 32 bytes/,
    );
    expect(base64Bytes({}, 'K', { atLeast: 32 })).toBeUndefined();
  });

  it('comma lists are trimmed and drop empty entries; fixed sets and true/false are strict', () => {
    expect(commaList({ L: ' a, ,b ,, ' }, 'L')).toEqual(['a', 'b']);
    expect(commaList({}, 'L', ['x'])).toEqual(['x']);
    expect(oneOf({ V: '1h' }, 'V', ['5m', '1h'] as const, '5m')).toBe('1h');
    expect(() => oneOf({ V: '1H' }, 'V', ['5m', '1h'] as const, '5m')).toThrow('V must be 5m or 1h.');
    expect(trueOrFalse({ V: 'TRUE' }, 'V', false)).toBe(true);
    expect(() => trueOrFalse({ V: '1' }, 'V', false)).toThrow('V must be true or false.');
  });

  it('host:port accepts names, IPv4 and bracketed IPv6', () => {
    expect(hostAndPort({ H: '10.0.0.2:7340' }, 'H')).toEqual({ hostname: '10.0.0.2', port: 7340 });
    expect(hostAndPort({ H: '[fd00::2]:7340' }, 'H')).toEqual({ hostname: 'fd00::2', port: 7340 });
    for (const bad of ['fd00::2:7340', 'host:', 'host:99999', ':7340', '[not-v6]:1']) {
      expect(() => hostAndPort({ H: bad }, 'H')).toThrow(/^H must be host:port/);
    }
  });
});
