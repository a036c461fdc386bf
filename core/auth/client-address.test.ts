import { describe, expect, it } from 'vitest';
import { clientAddress, isTrusted, parseTrustedProxies } from './client-address.ts';

describe('clientAddress', () => {
  const trusted = parseTrustedProxies('127.0.0.1, 10.0.0.0/8,::1');

  it('uses the socket peer when the peer is not a trusted proxy, whatever the header says', () => {
    expect(clientAddress('203.0.113.9', '1.2.3.4', trusted)).toBe('203.0.113.9');
  });
  it('takes the rightmost untrusted hop when the peer is trusted', () => {
    expect(clientAddress('127.0.0.1', '1.2.3.4, 198.51.100.7, 10.1.2.3', trusted)).toBe('198.51.100.7');
  });
  it('treats IPv4-mapped IPv6 peers as IPv4', () => {
    expect(clientAddress('::ffff:127.0.0.1', '198.51.100.7', trusted)).toBe('198.51.100.7');
    expect(isTrusted('::1', trusted)).toBe(true);
  });
  it('falls back to the peer without a header', () => {
    expect(clientAddress('127.0.0.1', undefined, trusted)).toBe('127.0.0.1');
  });
  it('refuses a bad entry naming its position, not its value', () => {
    expect(() => parseTrustedProxies('10.0.0.1, not-an-ip')).toThrow(/entry 2 is not an IP address/);
    try {
      parseTrustedProxies('10.0.0.1, not-an-ip');
    } catch (e) {
      expect((e as Error).message).not.toContain('not-an-ip');
    }
  });
  it('answers each list on its own, and stays right past the addresses it remembers', () => {
    const other = parseTrustedProxies('172.16.0.0/12');
    for (let i = 0; i < 1_500; i += 1) expect(isTrusted(`198.51.${i >> 8}.${i & 255}`, trusted)).toBe(false);
    expect([isTrusted('127.0.0.1', trusted), isTrusted('127.0.0.1', other)]).toEqual([true, false]);
    expect([isTrusted('172.16.2.3', trusted), isTrusted('172.16.2.3', other)]).toEqual([false, true]);
    expect(clientAddress('172.16.2.3', '203.0.113.9', other)).toBe('203.0.113.9');
    expect(clientAddress('172.16.2.3', '203.0.113.9', trusted)).toBe('172.16.2.3');
  });
});
