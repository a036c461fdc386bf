/**
 * Stand-in for the load balancer's key host and signer: an ES256 key pair made with jose, its public key
 * served as PEM at `<keyUrlBase>/<kid>` on a loopback HTTP server, and identity tokens signed the way the
 * load balancer signs them (base64url segments *with* `=` padding, signature over the padded segments,
 * raw r‖s signature; exp, signer, iss and client in the header).
 *
 * Source: spec/platform-service.md § Platform sign-in modes (cloud-alb).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportSPKI, generateKeyPair } from 'jose';

/** Default load balancer identifier of the tests. */
export const testAlbArn = 'arn:aws:elasticloadbalancing:eu-central-1:123456789012:loadbalancer/app/cairn-test/50dc6c495c0c9188';

/** Options of one signed identity token. */
export interface AlbSignOptions {
  /** Claims of the payload (sub, email, email_verified, name …); exp and iss are added unless given. */
  claims?: Record<string, unknown>;
  signer?: string;
  kid?: string;
  /** Seconds from now (default 120; negative for an expired token). */
  expiresInSeconds?: number;
  /** `=` padding on every segment, as the load balancer sends (default true). */
  padding?: boolean;
  /** Sign with another private key (default the served key's). */
  privateKey?: CryptoKey;
}

/** A running key host. */
export interface AlbKeyHost {
  keyUrlBase: string;
  kid: string;
  /** Paths requested so far. */
  requests: string[];
  sign(options?: AlbSignOptions): Promise<string>;
  stop(): Promise<void>;
}

/** Makes the key pair and serves its PEM on 127.0.0.1. */
export async function startAlbKeyHost(arn = testAlbArn): Promise<AlbKeyHost> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const pem = await exportSPKI(publicKey);
  const kid = crypto.randomUUID();
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === `/${kid}`) res.writeHead(200, { 'content-type': 'text/plain' }).end(pem);
    else res.writeHead(403, { 'content-type': 'application/xml' }).end('<Error><Code>AccessDenied</Code></Error>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    keyUrlBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    kid,
    requests,
    sign: (options = {}) => signAlbToken({ kid, signer: arn, privateKey, ...options }),
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

async function signAlbToken(options: AlbSignOptions & { kid: string; signer: string; privateKey: CryptoKey }): Promise<string> {
  const exp = Math.floor(Date.now() / 1000) + (options.expiresInSeconds ?? 120);
  const iss = 'https://idp.example.test/pool-1';
  const header = { typ: 'JWT', kid: options.kid, alg: 'ES256', iss, client: 'client-1', signer: options.signer, exp };
  const payload = { sub: 'user-1', email: 'ada@example.com', email_verified: 'true', name: 'Ada', exp, iss, ...options.claims };
  const encode = (bytes: Uint8Array) => encodeSegment(bytes, options.padding ?? true);
  const input = `${encode(json(header))}.${encode(json(payload))}`;
  const signature = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, options.privateKey, new TextEncoder().encode(input)));
  return `${input}.${encode(signature)}`;
}

function json(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}

function encodeSegment(bytes: Uint8Array, padding: boolean): string {
  const text = Buffer.from(bytes).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
  return padding ? text : text.replace(/=+$/, '');
}
