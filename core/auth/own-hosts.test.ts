import { describe, expect, it } from 'vitest';
import { hostNameOf, isIpLiteral, isOwnHost, ownHostNames } from './own-hosts.ts';

describe('own host names', () => {
  it(
    'takes the host names of the configured origins, lower case, without port or brackets; ' +
      'skips what is no URL',
    () => {
      expect(ownHostNames(['https://Cairn.Example:8443/', 'http://[::1]:5173', 'not a url', 'http://localhost:5173']))
        .toEqual(['cairn.example', '::1', 'localhost']);
    },
  );

  it('reads the host name of a Host header value, or nothing for a malformed one', () => {
    expect(['a.example', 'A.Example:80', '1.2.3.4:9', '[::1]:8080', '[::1]', 'x:'].map(hostNameOf))
      .toEqual(['a.example', 'a.example', '1.2.3.4', '::1', '::1', 'x']);
    expect(['', ':80', 'a:b', '[::1', '[::1]x', 'a:b:c'].map(hostNameOf))
      .toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  it('counts dotted-quad IPv4 and IPv6 literals as IP literals, never names or short forms', () => {
    expect(['10.0.0.5', '::1', 'fe80::1', '2001:db8::2'].every(isIpLiteral)).toBe(true);
    expect(['1.2.3', '2130706433', '0x7f.1', 'localhost', '1.2.3.4.example'].some(isIpLiteral)).toBe(false);
  });

  it('answers loopback names, IP literals and the configured names only', () => {
    expect(['localhost:1', '127.0.0.1', '[::1]:2', '192.168.1.5:8080', 'cairn.example']
      .every((h) => isOwnHost(h, ['cairn.example']))).toBe(true);
    expect(['rebind.attacker.example:8080', 'localhost.attacker.example', 'sub.cairn.example']
      .some((h) => isOwnHost(h, ['cairn.example']))).toBe(false);
  });

  it('gives the names of a list as it is now, also when the same list was changed in place', () => {
    const origins = ['https://cairn.example'];
    expect(ownHostNames(origins)).toEqual(['cairn.example']);
    origins.push('https://[::1]:8443');
    expect(ownHostNames(origins)).toEqual(['cairn.example', '::1']);
    ownHostNames(origins).push('attacker.example');
    expect(ownHostNames(origins)).toEqual(['cairn.example', '::1']);
  });
});
