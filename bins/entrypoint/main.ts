/**
 * entrypoint: the all-in-one mode. Front proxy (Caddy) on PORT, API on 127.0.0.1:API_PORT,
 * semantic-mcp on 127.0.0.1:SEMANTIC_MCP_PORT, embedded stores under the data directory; each child
 * restarted 2 s after it exits; SIGTERM or SIGINT stops every child.
 *
 * Source: spec/platform-service.md § Processes of the all-in-one container, § Rules 1–2.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { embeddedQueue } from './embedded-queue.ts';
import { appDirectory, isCompiledExecutable } from '../../core/adapters/runtime/app-directory.ts';
import { parseEntrypointSettings } from './settings.ts';
import { localMasterKey } from './master-key.ts';
import { DISPATCHER_NICENESS, supervise, tagged, type ChildSpec } from './supervisor.ts';
import { findProgram } from '../../core/adapters/worker/sandbox.ts';

// Compiled (bun build --compile): the sibling executables in this executable's directory, the
// Caddyfile and web files under CAIRN_APP_DIR (default: the directory above, e.g. /app).
// From sources: `bun bins/<name>/main.ts` and the repository's proxy/. The web app: dist/web/ when built
// there (scripts/build-web), else web/ (an installed tree).
const compiled = isCompiledExecutable(process.execPath);
const root = appDirectory(import.meta.url, process.execPath, process.env.CAIRN_APP_DIR);
let settings;
try {
  settings = parseEntrypointSettings(process.env, process.cwd(), `${hostname()}-${randomBytes(4).toString('hex')}`);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
// Rule 9: /data must be writable by the running user, or the entrypoint stops naming the directory.
// A probe file is written and removed, so a read-only mount or another owner is caught before any
// process starts (an existing directory alone proves nothing).
try {
  mkdirSync(settings.dataDir, { recursive: true });
  const probe = join(settings.dataDir, `.write-probe-${process.pid}`);
  writeFileSync(probe, '');
  rmSync(probe);
  mkdirSync(join(settings.dataDir, 'objects'), { recursive: true });
} catch {
  console.error(`The data directory ${settings.dataDir} is not writable by this user (uid ${process.getuid?.() ?? '?'}): make it writable by the user running cairn, or set CAIRN_DATA_DIR to a writable directory.`);
  process.exit(2);
}
const queue = settings.embeddedQueue && await embeddedQueue({ dataDir: settings.dataDir, runDir: join(tmpdir(), `cairn-${process.pid}-${randomBytes(4).toString('hex')}`), port: settings.embeddedQueue.port, maxMemory: settings.embeddedQueue.maxMemory, path: process.env.PATH,
  appendFsync: settings.embeddedQueue.appendFsync, log: (line) => tagged('entrypoint', line),
});
// The embedded store's URL (with its password) goes to the API and the dispatcher only.
const storeEnv: Record<string, string> = queue ? { QUEUE_URL: queue.url, PLATFORM_EMBEDDED_QUEUE: 'on', PLATFORM_INSTANCE_ID: settings.instanceId } : { PLATFORM_INSTANCE_ID: settings.instanceId };
// Outside production, with the db secret store and no MASTER_KEY, the data directory's own key seals credentials
// (made once, kept in <data>/master-key, readable by this user only), so organizations can connect collections on a
// first start; production requires MASTER_KEY (spec § Deployment settings). It goes to the API and dispatcher only.
const localKey = localMasterKey(settings.dataDir, process.env);
if (localKey) storeEnv.MASTER_KEY = localKey;
// Request header lines up to 32 KiB, as the front proxy allows (Bun's default is 16 KiB; scripts/build bakes the
// same flag into the executables). Source: spec § Limits (request header line); docs/decisions.md D17 § 6.
const BUN_HEADER_FLAG = '--max-http-header-size=32768';
const bin = (name: string, extraEnv: Record<string, string> = {}): ChildSpec => {
  const env = { ...settings.childEnv, CAIRN_APP_DIR: root, ...settings.processEnv[name], ...extraEnv };
  return compiled
    ? { tag: name, command: join(dirname(process.execPath), name), args: [], env, cwd: settings.dataDir }
    : {
      tag: name, command: process.execPath, args: [BUN_HEADER_FLAG, join(root, 'bins', name, 'main.ts')], env,
      cwd: root,
    };
};
// The built web app: dist/web/ of a checkout (scripts/build-web), else web/ of an installed tree (/app/web, /opt/cairn/web).
const webRoot = existsSync(join(root, 'dist', 'web', 'index.html')) ? join(root, 'dist', 'web') : join(root, 'web');
if (!existsSync(join(webRoot, 'index.html')) || readFileSync(join(webRoot, 'index.html'), 'utf8').includes('/src/main.tsx')) tagged('entrypoint', `warning: no built web app under ${webRoot}: run scripts/build-web`);
const proxy: ChildSpec = {
  tag: 'proxy',
  command: process.env.CAIRN_CADDY ?? 'caddy',
  args: ['run', '--config', join(root, 'proxy', 'Caddyfile'), '--adapter', 'caddyfile'],
  env: {
    PATH: process.env.PATH, HOME: settings.dataDir, XDG_DATA_HOME: join(settings.dataDir, 'caddy'),
    XDG_CONFIG_HOME: join(settings.dataDir, 'caddy'), PORT: String(settings.publicPort),
    CAIRN_PROXY_BIND: settings.proxyBind, API_PORT: String(settings.apiPort),
    SEMANTIC_MCP_PORT: String(settings.semanticMcpPort), WEB_ROOT: webRoot,
    CAIRN_PROXY_HOSTS: settings.proxyHosts.join(' '),
    ...(settings.trustedProxies.length > 0 ? { CAIRN_TRUSTED_PROXIES: settings.trustedProxies.join(' ') } : {}),
  },
  cwd: root,
};
tagged('entrypoint', `front proxy on ${settings.proxyBind}:${settings.publicPort}; api on 127.0.0.1:${settings.apiPort}; semantic-mcp on 127.0.0.1:${settings.semanticMcpPort}`);
if (settings.exposedDevUser) tagged('entrypoint', `warning: the front proxy listens on ${settings.proxyBind}:${settings.publicPort} (beyond loopback) and sign-in is dev-user, so anyone who reaches that port acts as the owner: set PLATFORM_SIGN_IN (oidc or cloud-alb), or keep the port private`);
if (settings.embedded.length > 0) tagged('entrypoint', `using embedded stores under ${settings.dataDir} (${settings.embedded.join(', ')} not set)`);
if (queue) tagged('entrypoint', `running its own queue store on 127.0.0.1:${queue.port} (QUEUE_URL not set): this container serves alone; more containers need QUEUE_URL naming a shared store`);
// The store keeps an append-only file in <data>/redis unless another entrypoint on the same data holds it (Rule 9).
if (queue?.persistentDir) tagged('entrypoint', `the queue store keeps its data in ${queue.persistentDir} (append-only file)`);
if (queue?.heldBy) tagged('entrypoint', `the queue store keeps nothing on disk: ${join(settings.dataDir, 'redis')} is held by another entrypoint (host ${queue.heldBy.host}, pid ${queue.heldBy.pid})`);
// The dispatcher and the workers it starts run at a lower priority: under a burst the answers (202s, streams) come
// first and the turns catch up after, rather than the other way round on a small machine.
const dispatcher: ChildSpec = { ...bin('dispatcher', storeEnv), niceness: DISPATCHER_NICENESS };
// The queue store stops last: a stopping dispatcher settles its jobs in it (bins/dispatcher/stop-work.ts).
// Every child gets SIGTERM when this process dies, even by SIGKILL (setpriv --pdeathsig, util-linux): none runs on
// orphaned, holding the ports and the queue store's files.
const setpriv = process.platform === 'linux' ? findProgram('setpriv', process.env.PATH) : undefined;
const specs = [...(queue ? [{ ...queue.spec, stopLast: true }] : []), bin('api', storeEnv), dispatcher, bin('semantic-mcp'), proxy];
const children = supervise(specs, setpriv ? { setpriv } : {});
let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  tagged('entrypoint', `${signal}: stopping every process`);
  await children.stop();
  queue?.release();
  process.exit(0);
};
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
