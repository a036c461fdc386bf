/**
 * semantic-mcp's Host check (docs/decisions.md D18 § 5): own names (loopback, IP literals, configured hosts, any port)
 * pass;
 * any other is a 421 JSON answer that names neither the host sent nor a configured one.
 */
import { describe, expect, it } from 'vitest';
import { foreignHostRefusal } from './host-check.ts';

const names = ['cairn.example.com'];
const request = (host: string) => new Request('http://placeholder/mcp/p/mcp', { method: 'POST', headers: { host } });

describe('foreignHostRefusal', () => {
  it.each(['localhost:3002', '127.0.0.1', '[::1]:8080', '10.1.2.3:3002', 'cairn.example.com', 'CAIRN.example.com:443'])(
    'serves %s',
    (host) => expect(foreignHostRefusal(request(host), names)).toBeUndefined(),
  );

  it.each(['rebind.attacker.example:3002', 'localhost.attacker.example', 'cairn.example.com.evil.example', 'a b'])(
    'answers %s with 421 misdirected_request',
    async (host) => {
      const answer = foreignHostRefusal(request(host), names);
      expect(answer?.status).toBe(421);
      const body = await answer?.json();
      expect(body.error.code).toBe('misdirected_request');
      expect(body.error.message).toMatch(/APP_BASE_URL/);
      expect(body.error.message).not.toMatch(/attacker|cairn\.example/);
    },
  );
});
