/**
 * PLATFORM_EMBEDDED_QUEUE_MAXMEMORY has one rule (core/config/embedded-queue-settings.ts) that the
 * entrypoint (which writes it into redis-server's configuration) and the services (parsePlatformEnv)
 * both apply: every row is accepted by both or refused by both, with a first line naming the variable.
 * Also: the entrypoint's proxy bind and the dev-user exposure it warns about.
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_EMBEDDED_QUEUE_MAXMEMORY, PORT, API_PORT).
 */
import { describe, expect, it } from 'vitest';
import { parseEmbeddedQueueMaxMemory } from '../../core/config/embedded-queue-settings.ts';
import { parsePlatformEnv } from '../../core/config/platform-env.ts';
import { parseEntrypointSettings } from './settings.ts';

const SERVICE_BASE = { DOCDB_URI: 'sqlite:/tmp/x.sqlite', OBJSTORE_BUCKET: 'cairn' };
const rows: [value: string | undefined, accepted: string | undefined][] = [
  [undefined, '256mb'], ['', '256mb'], ['256mb', '256mb'], ['1g', '1g'], ['1gb', '1gb'], ['1GB', '1GB'], ['512k', '512k'],
  ['64MB', '64MB'], ['1048576', '1048576'], ['100b', '100b'], [' 2gb ', '2gb'],
  ['0', undefined], ['0mb', undefined], ['lots', undefined], ['1.5gb', undefined], ['-1', undefined], ['1tb', undefined], ['256 mb', undefined], ['mb', undefined],
];

const outcome = (parse: () => string | undefined) => {
  try { return { value: parse() }; } catch (error) { return { refusal: (error as Error).message.split('\n')[0] }; }
};

describe('PLATFORM_EMBEDDED_QUEUE_MAXMEMORY: one rule for the entrypoint and the services', () => {
  it.each(rows)('%j → %j', (value, accepted) => {
    const env = value === undefined ? {} : { PLATFORM_EMBEDDED_QUEUE_MAXMEMORY: value };
    const results = [
      outcome(() => parseEmbeddedQueueMaxMemory(env)),
      outcome(() => parseEntrypointSettings(env, '/tmp', 'test').embeddedQueue?.maxMemory),
      outcome(() => parsePlatformEnv({ ...SERVICE_BASE, ...env }, { role: 'api' }).embeddedQueue.maxMemory),
    ];
    for (const result of results) {
      if (accepted === undefined) expect(result.refusal).toMatch(/^PLATFORM_EMBEDDED_QUEUE_MAXMEMORY must be a memory size above zero/);
      else expect(result).toEqual({ value: accepted });
    }
  });
});

describe('entrypoint settings', () => {
  it('binds every interface by default (the container) and flags the dev user as exposed there', () => {
    const settings = parseEntrypointSettings({}, '/tmp', 'test');
    expect(settings.proxyBind).toBe('0.0.0.0');
    expect(settings.exposedDevUser).toBe(true);
  });

  it.each([
    [{ CAIRN_PROXY_BIND: '127.0.0.1' }, false], [{ CAIRN_PROXY_BIND: '::1' }, false],
    [{ PLATFORM_SIGN_IN: 'oidc' }, false], [{ NODE_ENV: 'production' }, false], [{ CAIRN_PROXY_BIND: '10.0.0.5', PLATFORM_SIGN_IN: 'dev-user' }, true],
  ])('%j → exposed dev user %s', (env, exposed) => {
    expect(parseEntrypointSettings(env, '/tmp', 'test').exposedDevUser).toBe(exposed);
  });

  it('gives the children API_PORT and the all-in-one marker, and leaves PORT as the caller set it (the proxy\'s)', () => {
    const { childEnv } = parseEntrypointSettings({ PORT: '9090', API_PORT: '4001' }, '/tmp', 'test');
    expect(childEnv).toMatchObject({ PLATFORM_ALL_IN_ONE: 'on', API_PORT: '4001', PORT: '9090', API_HOST: '127.0.0.1' });
  });

  it('refuses a CAIRN_PROXY_BIND that is no address, naming it', () => {
    expect(() => parseEntrypointSettings({ CAIRN_PROXY_BIND: 'not an address' }, '/tmp', 'test')).toThrow(/^CAIRN_PROXY_BIND must be an IP address or host name/);
  });

  it('gives the front proxy the loopback names and the hosts of APP_BASE_URL and CORS_ALLOWED_ORIGINS '
    + '(docs/decisions.md D17 § 7)', () => {
    const hosts = (env: Record<string, string>) => parseEntrypointSettings(env, '/tmp', 'test').proxyHosts;
    expect(hosts({})).toEqual(['localhost', '127.0.0.1', '::1']);
    expect(hosts({
      APP_BASE_URL: 'https://Cairn.Example.com/', CORS_ALLOWED_ORIGINS: 'http://dev.example:5173, http://[::1]:5173',
    }))
      .toEqual(['localhost', '127.0.0.1', '::1', 'cairn.example.com', 'dev.example']);
    expect(hosts({ CORS_ALLOWED_ORIGINS: 'https://first.example,https://second.example' }))
      .toEqual(['localhost', '127.0.0.1', '::1', 'first.example', 'second.example']);
    expect(hosts({ APP_BASE_URL: 'not a url' })).toEqual(['localhost', '127.0.0.1', '::1']);
  });
});

describe('CAIRN_EMBEDDED_QUEUE_FSYNC', () => {
  it('is everysec by default, always when asked, and refuses anything else naming the variable', () => {
    expect(parseEntrypointSettings({}, '/tmp', 'test').embeddedQueue?.appendFsync).toBe('everysec');
    expect(parseEntrypointSettings({ CAIRN_EMBEDDED_QUEUE_FSYNC: 'always' }, '/tmp', 'test').embeddedQueue?.appendFsync).toBe('always');
    expect(() => parseEntrypointSettings({ CAIRN_EMBEDDED_QUEUE_FSYNC: 'no' }, '/tmp', 'test')).toThrow(/CAIRN_EMBEDDED_QUEUE_FSYNC/);
  });
});

describe('each child\'s Prometheus scrape port (docs/decisions.md D25 § 2)', () => {
  it('gives the api, dispatcher and semantic-mcp 9464, 9465 and 9466, or the ports from OTEL_EXPORTER_PROMETHEUS_PORT', () => {
    const ports = (env: Record<string, string>) => Object.fromEntries(Object.entries(parseEntrypointSettings(env, '/tmp', 'test').processEnv)
      .map(([name, vars]) => [name, vars.OTEL_EXPORTER_PROMETHEUS_PORT]));
    expect(ports({})).toEqual({ api: '9464', dispatcher: '9465', 'semantic-mcp': '9466' });
    expect(ports({ OTEL_EXPORTER_PROMETHEUS_PORT: '19000' })).toEqual({ api: '19000', dispatcher: '19001', 'semantic-mcp': '19002' });
    expect(() => parseEntrypointSettings({ OTEL_EXPORTER_PROMETHEUS_PORT: '65535' }, '/tmp', 'test')).toThrow(/^OTEL_EXPORTER_PROMETHEUS_PORT must leave 3 ports/);
  });
});
