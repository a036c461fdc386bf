/**
 * podman for container tests: finds out whether podman can run here, builds the image with
 * `scripts/build --image`, and runs containers that the test removes by name.
 *
 * Options for this kind of machine (../shared/TOOLCHAIN.md § Containers): vfs storage, runc, and a
 * containers.conf with cgroupfs and no default ulimits. CAIRN_PODMAN_ARGS overrides the global
 * options; CONTAINERS_CONF, when set, is used as is.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './product.ts';

/** Result of a podman call. */
export interface PodmanResult { status: number; stdout: string; stderr: string }

/** podman with the options of this machine. */
export interface Podman {
  /** Global options given before every subcommand. */
  args: string[];
  /** Environment of every podman call (CONTAINERS_CONF). */
  env: NodeJS.ProcessEnv;
  run(args: string[], timeoutMs?: number): Promise<PodmanResult>;
}

/** podman ready to use, or why not (the reason a test skips with). */
export type PodmanProbe = { available: true; podman: Podman } | { available: false; reason: string };

/** Whether podman can run here: installed, and `podman info` answers with these options. */
export function probePodman(): PodmanProbe {
  const version = spawnSync('podman', ['--version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0) return { available: false, reason: 'podman is not installed (apt-get install -y podman buildah runc)' };
  let conf = process.env.CONTAINERS_CONF;
  if (!conf) {
    const dir = join(tmpdir(), 'cairn-podman');
    mkdirSync(dir, { recursive: true });
    conf = join(dir, 'containers.conf');
    writeFileSync(conf, '[containers]\ndefault_ulimits = []\n\n[engine]\ncgroup_manager = "cgroupfs"\n');
  }
  const args = (process.env.CAIRN_PODMAN_ARGS ?? '--storage-driver vfs --runtime runc').split(/\s+/).filter(Boolean);
  const env = { ...process.env, CONTAINERS_CONF: conf, CAIRN_PODMAN_ARGS: args.join(' ') };
  const info = spawnSync('podman', [...args, 'info', '--format', '{{.Host.OCIRuntime.Name}}'], { encoding: 'utf8', env });
  if (info.status !== 0) return { available: false, reason: `podman cannot run here: ${(info.stderr || info.stdout).trim().split('\n').at(-1)}` };
  return { available: true, podman: { args, env, run: (rest, timeoutMs) => run('podman', [...args, ...rest], env, timeoutMs) } };
}

/**
 * Builds the image `tag` with `scripts/build --if-stale --tag <tag>` (dist/ only when stale; the
 * root file system once per machine, cached). @throws Error with the build output on failure
 */
export async function buildImage(podman: Podman, tag: string, appVersion: string): Promise<string> {
  const result = await run(join(repoRoot, 'scripts/build'), ['--if-stale', '--tag', tag], { ...podman.env, APP_VERSION: appVersion }, 30 * 60_000);
  if (result.status !== 0) throw new Error(`scripts/build --tag ${tag} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** Polls `url` until it answers `status`; resolves with the milliseconds it took. */
export async function waitForStatus(url: string, status: number, timeoutMs: number, logs: () => Promise<string>): Promise<number> {
  const started = Date.now();
  let last = 'no answer';
  while (Date.now() - started < timeoutMs) {
    try {
      const response = await fetch(url);
      if (response.status === status) return Date.now() - started;
      last = `HTTP ${response.status}`;
    } catch (error) { last = (error as Error).message; }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs / 1000} s (last: ${last}). Container output:\n${await logs()}`);
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<PodmanResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGTERM'); }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // A call stopped by its timeout reports 124, as timeout(1) does, whatever podman then exits with.
      if (timedOut) return resolve({ status: 124, stdout, stderr: `${stderr}\n(${command} stopped after its timeout of ${timeoutMs} ms)` });
      resolve({ status: code ?? (signal ? 128 : -1), stdout, stderr });
    });
  });
}
