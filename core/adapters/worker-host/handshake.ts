/**
 * Mutual proof of PLATFORM_WORKER_HOST_KEY over a TLS connection, before anything else is accepted: each
 * side sends HMAC-SHA256(key, side label ‖ TLS exporter value) and checks the other's in constant time.
 * The exporter value (RFC 5705/8446 keying material of this TLS session) binds the proof to this
 * connection: a proof cannot be replayed on another connection, and a party in the middle (two TLS
 * sessions, two exporter values) cannot relay one. The side label keeps one side's proof from being
 * reflected as the other's. The dispatching process proves first; the host answers only a proven peer.
 * No key byte is ever sent or logged.
 *
 * Source: spec/platform-service.md § Rules 10 (TLS connections authenticated in both directions
 * by PLATFORM_WORKER_HOST_KEY).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TLSSocket } from 'node:tls';

/**
 * What the handshake needs of a connection (a {@link import('./wire.ts').MessageSocket} fits).
 *
 * Source: spec/platform-service.md § Rules 10
 */
export interface ProofChannel {
  readonly socket: TLSSocket | import('node:net').Socket;
  next(timeoutMs: number): Promise<unknown>;
  send(message: { type: 'proof'; proof: string }): void;
}

/** Which end of the connection proves. */
export type HandshakeSide = 'host' | 'dispatcher';

/** Label of the TLS exporter value the proofs are bound to. */
const EXPORTER_LABEL = 'EXPORTER-cairn-worker-host';

/**
 * The proof `side` sends on `socket`: base64url HMAC-SHA256 over the side and this session's exporter value.
 *
 * Source: spec/platform-service.md § Rules 10
 */
export function proofFor(key: Uint8Array, side: HandshakeSide, socket: TLSSocket): string {
  const binding = socket.exportKeyingMaterial(32, EXPORTER_LABEL, Buffer.alloc(0));
  return createHmac('sha256', key).update(`cairn-worker-host/1 ${side}\n`).update(binding).digest('base64url');
}

function holdsProof(key: Uint8Array, side: HandshakeSide, socket: TLSSocket, message: unknown): boolean {
  const given = message as { type?: unknown; proof?: unknown } | undefined;
  if (given?.type !== 'proof' || typeof given.proof !== 'string') return false;
  const expected = Buffer.from(proofFor(key, side, socket), 'base64url');
  const received = Buffer.from(given.proof, 'base64url');
  return received.length === expected.length && timingSafeEqual(received, expected);
}

/**
 * Runs this side's part of the handshake on an established TLS connection: the dispatching process
 * sends its proof and checks the host's; the host checks the dispatcher's and only then sends its own.
 * @returns whether the peer proved the key within `timeoutMs` (when not, nothing more was sent)
 *
 * Source: spec/platform-service.md § Rules 10
 */
export async function proveKey(
  channel: ProofChannel,
  key: Uint8Array,
  side: HandshakeSide,
  timeoutMs: number,
): Promise<boolean> {
  const socket = channel.socket as TLSSocket;
  const peer: HandshakeSide = side === 'host' ? 'dispatcher' : 'host';
  if (side === 'dispatcher') channel.send({ type: 'proof', proof: proofFor(key, side, socket) });
  const proven = holdsProof(key, peer, socket, await channel.next(timeoutMs));
  if (proven && side === 'host') channel.send({ type: 'proof', proof: proofFor(key, side, socket) });
  return proven;
}
