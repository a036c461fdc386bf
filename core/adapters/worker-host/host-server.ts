/**
 * The worker host's listener: TLS (TLS 1.3, an ephemeral self-signed certificate made at start) on
 * PLATFORM_WORKER_HOST_BIND:PLATFORM_WORKER_HOST_PORT; a connection whose peer does not prove
 * PLATFORM_WORKER_HOST_KEY (./handshake.ts) is closed and logged, naming its address and never a key
 * byte; a proven one runs one worker (./host-run.ts). A failing worker or connection never stops the
 * listener.
 *
 * Source: spec/platform-service.md § Rules 10; § Deployment settings (PLATFORM_WORKER_HOST_KEY,
 * _PORT, _BIND); § Operational log lines ([worker-host]); § Limits (worker host port).
 */
import { createServer, type TLSSocket } from 'node:tls';
import { proveKey } from './handshake.ts';
import { type HostLauncher, serveRun } from './host-run.ts';
import { makeSelfSignedCertificate } from './self-signed.ts';
import { type DispatcherMessage, type HostMessage, MessageSocket, PROVEN_LINE_CHARS } from './wire.ts';

/**
 * What a worker host serves with.
 *
 * Source: spec/platform-service.md § Rules 10; § Deployment settings (PLATFORM_WORKER_HOST_*)
 */
export interface WorkerHostOptions {
  /** PLATFORM_WORKER_HOST_KEY (at least 32 bytes). */
  key: Uint8Array;
  /** PLATFORM_WORKER_HOST_PORT (default 7340 is the caller's); 0 picks a free port (tests). */
  port: number;
  /** PLATFORM_WORKER_HOST_BIND (`0.0.0.0` for every interface). */
  bind: string;
  /** Runs the workers: the local launcher with slots no dispatcher reaches. */
  launcher: HostLauncher;
  /** Receives each `[worker-host] …` line. */
  log(line: string): void;
  /** Milliseconds a connection has to complete TLS and prove the key (default 10 000). */
  handshakeTimeoutMs?: number;
}

/**
 * A listening worker host: its port, and `close` (stops listening, ends open connections).
 *
 * Source: spec/platform-service.md § Rules 10
 */
export interface RunningWorkerHost {
  port: number;
  close(): Promise<void>;
}

/**
 * Starts listening.
 * @throws the listen error (e.g. EADDRINUSE) when the address cannot be bound
 *
 * Source: spec/platform-service.md § Rules 10
 */
export async function startWorkerHost(options: WorkerHostOptions): Promise<RunningWorkerHost> {
  const timeoutMs = options.handshakeTimeoutMs ?? 10_000;
  const refuse = (address: string | undefined) =>
    options.log(`[worker-host] refused a connection from ${address ?? 'an unknown address'}: it does not hold the key`);
  const sockets = new Set<TLSSocket>();
  const server = createServer(
    { ...makeSelfSignedCertificate(), minVersion: 'TLSv1.3', handshakeTimeout: timeoutMs },
    (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      const address = socket.remoteAddress; // read now: a destroyed socket no longer knows it
      serveConnection(socket, options, timeoutMs).then(
        (proven) => {
          if (!proven) refuse(address);
        },
        () => socket.destroy(), // one connection's failure never stops the host
      );
    },
  );
  // A peer that fails TLS itself (wrong protocol, no TLS 1.3, timed out) proved nothing either.
  server.on('tlsClientError', (_error, socket) => {
    refuse(socket.remoteAddress);
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.bind, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** @returns false when the peer did not prove the key (the connection is then closed) */
async function serveConnection(socket: TLSSocket, options: WorkerHostOptions, timeoutMs: number): Promise<boolean> {
  const channel = new MessageSocket<DispatcherMessage, HostMessage>(socket);
  socket.setKeepAlive(true, 30_000);
  if (!(await proveKey(channel, options.key, 'host', timeoutMs))) {
    socket.destroy();
    return false;
  }
  channel.raiseLimit(PROVEN_LINE_CHARS);
  await serveRun(channel, options.launcher, options.log);
  return true;
}
