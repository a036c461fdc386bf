/**
 * A DNS server on loopback (UDP) for tests: answers TXT questions from a table the test changes while it
 * runs, NXDOMAIN for names it does not hold, and SERVFAIL for names marked failing. Packets are encoded
 * and decoded by `dns-packet`.
 */
import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import * as packet from 'dns-packet';

/** A running loopback DNS server. */
export interface DnsServer {
  /** `127.0.0.1:<port>`, as `Resolver.setServers` takes it. */
  address: string;
  /** TXT records by lower-case name; each record is one string. */
  txt: Map<string, string[]>;
  /** Names answered with SERVFAIL. */
  failing: Set<string>;
  /** Questions received, `<type> <name>`. */
  asked: string[];
  close(): Promise<void>;
}

/** Starts a DNS server on 127.0.0.1 on a free UDP port. */
export async function startDnsServer(): Promise<DnsServer> {
  const socket: Socket = createSocket('udp4');
  const txt = new Map<string, string[]>();
  const failing = new Set<string>();
  const asked: string[] = [];
  socket.on('message', (message, peer) => {
    const query = packet.decode(message);
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    asked.push(`${question.type} ${name}`);
    const records = txt.get(name);
    const rcode = failing.has(name) ? 'SERVFAIL' : records ? 'NOERROR' : 'NXDOMAIN';
    const answers = question.type === 'TXT' && records && !failing.has(name)
      ? records.map((data) => ({ type: 'TXT' as const, name: question.name, ttl: 60, class: 'IN' as const, data }))
      : [];
    const response = packet.encode({ id: query.id, type: 'response', flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | rcodeFlag(rcode), questions: [question], answers });
    socket.send(response, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  return { address: `127.0.0.1:${port}`, txt, failing, asked, close: () => new Promise<void>((resolve) => socket.close(() => resolve())) };
}

function rcodeFlag(rcode: 'NOERROR' | 'NXDOMAIN' | 'SERVFAIL'): number {
  return { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3 }[rcode];
}
