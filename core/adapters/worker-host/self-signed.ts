/**
 * An ephemeral self-signed TLS certificate made in memory at each start of a worker host: an ECDSA P-256
 * key pair from node:crypto and a minimal X.509 v3 certificate (DER, written here: no certificate library
 * is needed). The certificate proves nothing by itself; both sides prove they hold PLATFORM_WORKER_HOST_KEY
 * with a challenge–response bound to the TLS session (see ./handshake.ts), so a certificate made by anyone
 * else cannot stand in the middle.
 *
 * Source: spec/platform-service.md § Rules 10 (TLS connections authenticated in both directions
 * by PLATFORM_WORKER_HOST_KEY).
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/** A certificate and its private key, both PEM. */
export interface SelfSignedCertificate {
  cert: string;
  key: string;
}

const OID_ECDSA_WITH_SHA256 = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02];
const OID_COMMON_NAME = [0x55, 0x04, 0x03];

function length(n: number): number[] {
  if (n < 0x80) return [n];
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return [0x80 | bytes.length, ...bytes];
}

function der(tag: number, ...parts: (Uint8Array | number[])[]): Buffer {
  const body = Buffer.concat(parts.map((part) => Buffer.from(part)));
  return Buffer.concat([Buffer.from([tag, ...length(body.length)]), body]);
}

const sequence = (...parts: (Uint8Array | number[])[]) => der(0x30, ...parts);

function distinguishedName(commonName: string): Buffer {
  return sequence(der(0x31, sequence(der(0x06, OID_COMMON_NAME), der(0x0c, Buffer.from(commonName, 'utf8')))));
}

function pem(label: string, body: Buffer): string {
  const lines = body.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/**
 * Makes a new key pair and a self-signed certificate for `commonName` (valid 2000–2049: its dates are not
 * what is trusted). Nothing is written to disk.
 * @returns PEM certificate and PKCS#8 private key
 *
 * Source: spec/platform-service.md § Rules 10
 */
export function makeSelfSignedCertificate(commonName = 'cairn-worker-host'): SelfSignedCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const serial = randomBytes(16);
  serial[0] &= 0x7f; // a positive INTEGER
  const algorithm = sequence(der(0x06, OID_ECDSA_WITH_SHA256));
  const name = distinguishedName(commonName);
  const validity = sequence(der(0x17, Buffer.from('000101000000Z')), der(0x17, Buffer.from('491231235959Z')));
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const tbs = sequence(der(0xa0, der(0x02, [2])), der(0x02, serial), algorithm, name, validity, name, spki);
  const signature = sign('sha256', tbs, privateKey);
  const certificate = sequence(tbs, algorithm, der(0x03, [0], signature));
  return { cert: pem('CERTIFICATE', certificate), key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}
