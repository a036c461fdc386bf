/**
 * A real S3-protocol server (s3rver) in a child process for one test file, on a loopback port the OS
 * chooses, over a temporary directory, stopped by PID.
 *
 * Source: docs/architecture.md § Ports and adapters (ObjectStore tested against s3rver);
 * ../shared/TOOLCHAIN.md § Libraries (S3: run s3rver with Node and --openssl-legacy-provider).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');
const runner = join(root, 'test/helpers/s3rver-runner.cjs');

/**
 * A running s3rver.
 *
 * Source: docs/architecture.md § Ports and adapters (ObjectStore tested against s3rver).
 */
export interface RunningS3 {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  port: number;
  /** The bucket created at start. */
  bucket: string;
  /** Region to sign with (s3rver accepts any). */
  region: string;
  /** s3rver's built-in key pair (S3RVER / S3RVER). */
  defaultCredentials: { accessKeyId: string; secretAccessKey: string };
  /** A random key pair registered at start, to show explicit credentials are the ones used. */
  credentials: { accessKeyId: string; secretAccessKey: string };
  stop(): Promise<void>;
}

/**
 * Starts s3rver with one bucket.
 * @param options - `bucket` (default `cairn-test`), `startTimeoutMs` (default 20 000)
 * @throws Error when the server does not report its port in time or exits first
 *
 * Source: docs/architecture.md § Ports and adapters (ObjectStore tested against s3rver).
 */
export async function startS3(options: { bucket?: string; startTimeoutMs?: number } = {}): Promise<RunningS3> {
  const bucket = options.bucket ?? 'cairn-test';
  const dir = mkdtempSync(join(tmpdir(), 'cairn-s3rver-'));
  const credentials = { accessKeyId: `AK${randomBytes(8).toString('hex').toUpperCase()}`, secretAccessKey: randomBytes(20).toString('hex') };
  const child = spawn(node, ['--openssl-legacy-provider', runner, dir, bucket], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, S3RVER_EXTRA_KEY_ID: credentials.accessKeyId, S3RVER_EXTRA_SECRET: credentials.secretAccessKey },
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let port: number;
  try {
    port = await readPort(child, options.startTimeoutMs ?? 20_000);
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    bucket,
    region: 'us-east-1',
    defaultCredentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    credentials,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid as number, 'SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits for the runner's `{"port": N}` line. */
function readPort(child: ReturnType<typeof spawn>, timeoutMs: number): Promise<number> {
  return new Promise((done, fail) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => fail(new Error(`s3rver did not start within ${timeoutMs} ms: ${stderr}`)), timeoutMs);
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined || !stdout.includes('\n')) return;
      clearTimeout(timer);
      done((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`s3rver exited with ${code} before it listened: ${stderr}`));
    });
  });
}
