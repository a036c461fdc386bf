/**
 * A git server over https on loopback for skill-registry tests: a bare repository served by `git http-backend` (the
 * smart HTTP protocol, as GitHub speaks it) behind a Node https server whose self-signed certificate (made with
 * openssl for 127.0.0.1) a client trusts through NODE_EXTRA_CA_CERTS. `commit` writes files in a working copy and
 * pushes them; `stop` takes the server down (the port refuses connections); `start` brings it back on the same port.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A running git https server. */
export interface GitHttpsServer {
  /** The repository's https URL, e.g. https://127.0.0.1:41234/skills.git. */
  url: string;
  /** The PEM certificate file to give a client as NODE_EXTRA_CA_CERTS. */
  caFile: string;
  /** The working copy `commit` commits from (a test may make symbolic links there, then commit them with `{}`). */
  workDir: string;
  /** Writes `files` (path → text; null deletes) in the working copy, commits and pushes. @returns the commit id */
  commit(files: Record<string, string | null>, message: string): string;
  /** Requests the server answered so far. */
  requests: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its files. */
  close(): Promise<void>;
}

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Registry', GIT_AUTHOR_EMAIL: 'registry@example.com',
  GIT_COMMITTER_NAME: 'Registry', GIT_COMMITTER_EMAIL: 'registry@example.com',
};
const run = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' }).trim();

/**
 * Starts the server with an empty repository `<name>.git` (default `skills`) on a free port; with `plain`, over
 * http (for a client in the test's own process, which NODE_EXTRA_CA_CERTS cannot reach once started).
 */
export async function startGitHttpsServer(name = 'skills', { plain = false } = {}): Promise<GitHttpsServer> {
  const root = mkdtempSync(join(tmpdir(), 'cairn-git-https-'));
  const projects = join(root, 'projects');
  const work = join(root, 'work');
  mkdirSync(projects);
  const bare = join(projects, `${name}.git`);
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', bare]);
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', work]);
  run(work, 'remote', 'add', 'origin', bare);
  const keyFile = join(root, 'key.pem');
  const caFile = join(root, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', caFile, '-days', '2',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
  ], { stdio: 'ignore' });
  const state = { requests: 0 };
  let server: Server | undefined;
  let port = 0;
  const listen = () => new Promise<void>((resolve) => {
    const handler: Parameters<typeof createHttpServer>[1] = (request, response) => {
      state.requests += 1;
      const url = new URL(request.url ?? '/', 'https://127.0.0.1');
      const cgi = spawn('git', ['http-backend'], {
        env: {
          ...process.env, GIT_PROJECT_ROOT: projects, GIT_HTTP_EXPORT_ALL: '1', PATH_INFO: url.pathname,
          QUERY_STRING: url.search.slice(1), REQUEST_METHOD: request.method ?? 'GET',
          CONTENT_TYPE: request.headers['content-type'] ?? '', HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
          GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''), REMOTE_ADDR: '127.0.0.1',
        },
      });
      request.pipe(cgi.stdin);
      const chunks: Buffer[] = [];
      cgi.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      cgi.on('close', () => {
        const out = Buffer.concat(chunks);
        const split = out.indexOf('\r\n\r\n') >= 0 ? out.indexOf('\r\n\r\n') : out.indexOf('\n\n');
        const gap = out[split] === 13 ? 4 : 2;
        const head = out.subarray(0, split).toString('utf8').split(/\r?\n/);
        let status = 200;
        const headers: Record<string, string> = {};
        for (const line of head) {
          const colon = line.indexOf(':');
          const [key, value] = [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
          if (key.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
          else if (key) headers[key] = value;
        }
        response.writeHead(status, headers);
        response.end(out.subarray(split + gap));
      });
    };
    server = plain ? createHttpServer(handler) as unknown as Server
      : createServer({ key: readFileSync(keyFile), cert: readFileSync(caFile) }, handler);
    server.listen(port, '127.0.0.1', () => {
      port = (server!.address() as { port: number }).port;
      resolve();
    });
  });
  await listen();
  const stop = () => new Promise<void>((resolve) => {
    if (!server) return resolve();
    server.closeAllConnections();
    server.close(() => resolve());
    server = undefined;
  });
  return {
    url: `${plain ? 'http' : 'https'}://127.0.0.1:${port}/${name}.git`,
    caFile,
    workDir: work,
    get requests() { return state.requests; },
    commit: (files, message) => {
      for (const [path, text] of Object.entries(files)) {
        const full = join(work, path);
        if (text === null) rmSync(full, { force: true });
        else {
          mkdirSync(dirname(full), { recursive: true });
          writeFileSync(full, text);
        }
      }
      run(work, 'add', '--all');
      run(work, 'commit', '--quiet', '-m', message);
      run(work, 'push', '--quiet', 'origin', 'main');
      return run(work, 'rev-parse', 'HEAD');
    },
    stop,
    start: listen,
    close: async () => {
      await stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
