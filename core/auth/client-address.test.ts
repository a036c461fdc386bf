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
});
