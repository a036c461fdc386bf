/**
 * One row per variable of spec/platform-service.md § Deployment settings: a good value, a bad value (where the
 * variable has a value rule) and the default. A refusal's first line names the variable and never holds the value.
 */
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import type { EnvRecord } from './env-values.ts';
import { parsePlatformEnv } from './platform-env.ts';
import { PlatformEnv, type ProcessRole } from './platform-env-model.ts';
import { configRefusal } from '../testing/config-refusal.ts';

const BASE: EnvRecord = { DOCDB_URI: 'sqlite:/tmp/cairn-test/docdb.sqlite', OBJSTORE_BUCKET: 'cairn' };
const KEY32 = btoa(String.fromCharCode(...Array.from({ length: 32 }, (_, i) => i + 1)));
const KEY16 = btoa(String.fromCharCode(...Array.from({ length: 16 }, (_, i) => i + 65)));
const OIDC = { PLATFORM_SIGN_IN: 'oidc', PLATFORM_OIDC_ISSUER: 'https://id.example/', PLATFORM_OIDC_CLIENT_ID: 'web' };
const ALB = {
  PLATFORM_SIGN_IN: 'cloud-alb',
  PLATFORM_CLOUD_ALB_ARN: 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/c/1',
  PLATFORM_CLOUD_ALB_SIGN_OUT_URL: 'https://auth.example/logout',
};
const CLOUD = { PLATFORM_SECRET_STORE: 'cloud-secrets-manager', PLATFORM_CLOUD_SECRETS_REGION: 'eu-west-1' };
const RUBRIC = {
  PLATFORM_API_BASE_URL: 'https://models.example/v1',
  PLATFORM_API_KEY: 'sk-test',
  PLATFORM_MODEL: 'judge-1',
};
const REQUIRED = Symbol('required');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Pick = (env: any) => unknown;
interface Row {
  name: string;
  pick: Pick;
  good: [value: string, expected: unknown];
  /** A value the rule refuses; undefined for free-form variables. */
  bad?: string;
  /** Expected value when unset, or REQUIRED. */
  fallback: unknown;
  /** Variables the row needs beside BASE (for good and bad). */
  base?: EnvRecord;
  /** Variables beside BASE for the default check (default: `base`). */
  fallbackBase?: EnvRecord;
  role?: ProcessRole;
}

const rows: Row[] = [
  { name: 'NODE_ENV', pick: (e) => e.nodeEnv, good: ['test', 'test'], bad: 'staging', fallback: 'development' },
  { name: 'APP_VERSION', pick: (e) => e.appVersion, good: ['1.4.0', '1.4.0'], bad: '1.4 beta', fallback: 'dev' },
  { name: 'PORT', pick: (e) => e.port, good: ['8081', 8081], bad: '70000', fallback: 3001 },
  { name: 'API_HOST', pick: (e) => e.apiHost, good: ['127.0.0.1', '127.0.0.1'], bad: 'no host!', fallback: '0.0.0.0' },
  {
    name: 'CORS_ALLOWED_ORIGINS',
    pick: (e) => e.corsAllowedOrigins,
    good: [' https://a.example , ,http://b.example:8080 ', ['https://a.example', 'http://b.example:8080']],
    bad: 'https://a.example,javascript:void',
    fallback: ['http://localhost:5173'],
  },
  {
    name: 'APP_BASE_URL',
    pick: (e) => e.appBaseUrl,
    good: ['https://cairn.example/', 'https://cairn.example'],
    bad: 'cairn.example',
    fallback: 'http://localhost:5173',
  },
  {
    name: 'PLATFORM_ALLOW_NEWER_DATA',
    pick: (e) => e.allowNewerData,
    good: ['true', true],
    bad: 'yes',
    fallback: false,
  },
  {
    name: 'PLATFORM_USER_RATE_PER_MINUTE',
    pick: (e) => e.userRatePerMinute,
    good: ['90', 90],
    bad: '-5',
    fallback: 60,
  },
  {
    name: 'DOCDB_URI',
    pick: (e) => e.stores.documents,
    good: ['mongodb://db.example/cairn', { kind: 'mongodb', uri: 'mongodb://db.example/cairn' }],
    bad: 'postgres://db.example/cairn',
    fallback: REQUIRED,
  },
  {
    name: 'QUEUE_URL',
    pick: (e) => e.stores.queueUrl,
    good: ['rediss://u:pw@q.example:6380', 'rediss://u:pw@q.example:6380'],
    bad: 'http://q.example',
    fallback: 'redis://localhost:6379',
  },
  { name: 'OBJSTORE_BUCKET', pick: (e) => e.stores.objects.bucket, good: ['bucket-a', 'bucket-a'], fallback: REQUIRED },
  {
    name: 'OBJSTORE_ACCESS_KEY_ID',
    pick: (e) => e.stores.objects.credentials?.accessKeyId,
    good: ['AKID', 'AKID'],
    base: { OBJSTORE_SECRET_ACCESS_KEY: 'sk' },
    fallbackBase: {},
    fallback: undefined,
  },
  {
    name: 'OBJSTORE_SECRET_ACCESS_KEY',
    pick: (e) => e.stores.objects.credentials?.secretAccessKey,
    good: ['sk', 'sk'],
    base: { OBJSTORE_ACCESS_KEY_ID: 'AKID' },
    fallbackBase: {},
    fallback: undefined,
  },
  {
    name: 'OBJSTORE_REGION',
    pick: (e) => e.stores.objects.region,
    good: ['eu-west-1', 'eu-west-1'],
    fallback: 'us-east-1',
  },
  {
    name: 'OBJSTORE_ENDPOINT',
    pick: (e) => e.stores.objects.endpoint,
    good: ['http://127.0.0.1:9000', 'http://127.0.0.1:9000/'],
    bad: 'ftp://objects.example',
    fallback: undefined,
  },
  { name: 'OBJSTORE_PREFIX', pick: (e) => e.stores.objects.prefix, good: ['tenant-a/', 'tenant-a/'], fallback: '' },
  {
    name: 'OBJSTORE_FORCE_PATH_STYLE',
    pick: (e) => e.stores.objects.forcePathStyle,
    good: ['true', true],
    bad: 'sometimes',
    fallback: false,
  },
  {
    name: 'PLATFORM_SCRATCH_DIR',
    pick: (e) => e.scratchDir,
    good: ['/data/scratch', '/data/scratch'],
    fallback: '/tmp/cairn',
  },
  {
    name: 'PLATFORM_TEMPLATE_REPO',
    pick: (e) => e.templateRepo,
    good: ['/app/template', '/app/template'],
    fallback: '.cairn/template',
  },
  {
    name: 'PLATFORM_SKILL_REGISTRIES_DIR',
    pick: (e) => e.skillRegistriesDir,
    good: ['/data/skill-registries', '/data/skill-registries'],
    fallback: '.cairn/skill-registries',
  },
  {
    name: 'PLATFORM_SIGN_IN',
    pick: (e) => e.signIn?.mode,
    good: ['dev-user', 'dev-user'],
    bad: 'saml',
    fallback: 'dev-user',
  },
  {
    name: 'PLATFORM_OIDC_ISSUER',
    pick: (e) => e.signIn.issuer,
    base: OIDC,
    good: ['https://tenant.id.example/', 'https://tenant.id.example/'],
    bad: 'tenant.id.example',
    fallback: REQUIRED,
  },
  {
    name: 'PLATFORM_OIDC_CLIENT_ID',
    pick: (e) => e.signIn.clientId,
    base: OIDC,
    good: ['web-app', 'web-app'],
    fallback: REQUIRED,
  },
  {
    name: 'PLATFORM_OIDC_AUDIENCE',
    pick: (e) => e.signIn.audience,
    base: OIDC,
    good: ['https://api.example', 'https://api.example'],
    fallback: undefined,
  },
  {
    name: 'PLATFORM_OIDC_SIGN_OUT_URL',
    pick: (e) => e.signIn.signOutUrl,
    base: OIDC,
    good: ['https://id.example/logout', 'https://id.example/logout'],
    bad: 'logout-page',
    fallback: undefined,
  },
  {
    name: 'PLATFORM_IDP_DB_CONNECTION',
    pick: (e) => e.signIn.idpDbConnection,
    base: OIDC,
    good: ['Username-Password', 'Username-Password'],
    fallback: undefined,
  },
  {
    name: 'PLATFORM_CLOUD_ALB_ARN',
    pick: (e) => [e.signIn.albArn, e.signIn.albRegion],
    base: ALB,
    good: ['arn:aws:elasticloadbalancing:us-east-2:1:loadbalancer/app/x/9', [
      'arn:aws:elasticloadbalancing:us-east-2:1:loadbalancer/app/x/9',
      'us-east-2',
    ]],
    bad: 'my-balancer',
    fallback: REQUIRED,
  },
  {
    name: 'PLATFORM_CLOUD_ALB_SIGN_OUT_URL',
    pick: (e) => e.signIn.signOutUrl,
    base: ALB,
    good: ['https://auth.example/bye', 'https://auth.example/bye'],
    bad: 'bye-page',
    fallback: REQUIRED,
  },
  {
    name: 'PLATFORM_CLOUD_ALB_SESSION_COOKIE',
    pick: (e) => e.signIn.sessionCookie,
    base: ALB,
    good: ['MyCookie', 'MyCookie'],
    bad: 'my cookie;',
    fallback: 'LBAuthSessionCookie',
  },
  {
    name: 'PLATFORM_MANAGED_DOMAIN_CLAIM',
    pick: (e) => e.identity.managedDomainClaim,
    good: ['custom:managed_domain', 'custom:managed_domain'],
    bad: 'two words',
    fallback: 'http://localhost:5173/managed_domain',
  },
  {
    name: 'PLATFORM_EMAIL_VERIFICATION',
    pick: (e) => e.identity.emailVerification,
    good: ['OFF', false],
    bad: 'maybe',
    fallback: true,
  },
  {
    name: 'PLATFORM_SECRET_STORE',
    pick: (e) => e.secretStore.kind,
    base: { PLATFORM_CLOUD_SECRETS_REGION: 'eu-west-1' },
    fallbackBase: {},
    good: ['cloud-secrets-manager', 'cloud-secrets-manager'],
    bad: 'vault',
    fallback: 'db',
  },
  {
    name: 'MASTER_KEY',
    pick: (e) => e.secretStore.masterKey?.length,
    good: [KEY32, 32],
    bad: KEY16,
    fallback: undefined,
  },
  {
    name: 'PLATFORM_CLOUD_SECRETS_REGION',
    pick: (e) => e.secretStore.region,
    base: { PLATFORM_SECRET_STORE: 'cloud-secrets-manager' },
    good: ['eu-central-1', 'eu-central-1'],
    bad: 'EU West',
    fallback: REQUIRED,
  },
  {
    name: 'PLATFORM_CLOUD_SECRETS_PREFIX',
    pick: (e) => e.secretStore.prefix,
    base: CLOUD,
    good: ['tenants/a/', 'tenants/a/'],
    bad: 'tenants-a',
    fallback: 'cairn/credentials/',
  },
  {
    name: 'PLATFORM_CLOUD_SECRETS_KMS_KEY_ID',
    pick: (e) => e.secretStore.kmsKeyId,
    base: CLOUD,
    good: ['alias/cairn', 'alias/cairn'],
    fallback: undefined,
  },
  {
    name: 'PLATFORM_CLOUD_SECRETS_ENDPOINT',
    pick: (e) => e.secretStore.endpoint,
    base: CLOUD,
    good: ['http://127.0.0.1:4566', 'http://127.0.0.1:4566'],
    bad: 'localhost:4566',
    fallback: undefined,
  },
  {
    name: 'OAUTH2_REDIRECT_URL',
    pick: (e) => e.oauth2RedirectUrl,
    good: ['https://cairn.example/api/oauth2/callback', 'https://cairn.example/api/oauth2/callback'],
    bad: 'https://cairn.example/callback',
    fallback: undefined,
  },
  {
    name: 'PLATFORM_DNS_VERIFICATION',
    pick: (e) => e.identity.dnsVerification,
    good: ['no', false],
    bad: 'nah',
    fallback: true,
  },
  {
    name: 'PLATFORM_ALLOW_PRIVATE_URLS',
    pick: (e) => e.allowPrivateUrls,
    good: ['true', true],
    bad: 'yes',
    fallback: false,
  },
  { name: 'PLATFORM_STOP_GRACE_SECONDS', pick: (e) => e.stopGraceSeconds, good: ['5', 5], bad: '91', fallback: 20 },
  {
    name: 'PLATFORM_TRIGGER_POLL_CONCURRENCY',
    pick: (e) => e.triggerPollConcurrency,
    good: ['2', 2],
    bad: 'four',
    fallback: 4,
  },
  {
    name: 'PLATFORM_WORKER_TURN_MEMORY_MB',
    pick: (e) => e.workers.turn.memoryMb,
    good: ['2048', 2048],
    bad: '64',
    fallback: 1024,
  },
  {
    name: 'PLATFORM_WORKER_CALL_MEMORY_MB',
    pick: (e) => e.workers.call.memoryMb,
    good: ['256', 256],
    bad: '100',
    fallback: 512,
  },
  {
    name: 'PLATFORM_WORKER_TURN_SECONDS',
    pick: (e) => e.workers.turn.wallTimeSeconds,
    good: ['1800', 1800],
    bad: '1.5',
    fallback: 3600,
  },
  {
    name: 'PLATFORM_WORKER_CALL_SECONDS',
    pick: (e) => e.workers.call.wallTimeSeconds,
    good: ['60', 60],
    bad: 'abc',
    fallback: 300,
  },
  { name: 'PLATFORM_WORKER_TURN_SLOTS', pick: (e) => e.workers.turn.slots, good: ['5', 5], bad: '0', fallback: 3 },
  { name: 'PLATFORM_WORKER_CALL_SLOTS', pick: (e) => e.workers.call.slots, good: ['8', 8], bad: '-1', fallback: 6 },
  {
    name: 'PLATFORM_WORKER_INSPECT',
    pick: (e) => e.workers.inspect,
    good: ['on', true],
    bad: 'debug',
    fallback: false,
  },
  {
    name: 'PLATFORM_WORKER_ISOLATION',
    pick: (e) => e.workers.isolation,
    good: ['permission-only', 'permission-only'],
    bad: 'none',
    fallback: 'namespaces',
  },
  {
    name: 'PLATFORM_WORKER_HOST',
    pick: (e) => e.remoteWorkerHost && [e.remoteWorkerHost.hostname, e.remoteWorkerHost.port],
    base: { PLATFORM_WORKER_HOST_KEY: KEY32 },
    fallbackBase: {},
    good: ['workers.internal:7340', ['workers.internal', 7340]],
    bad: 'workers.internal',
    fallback: undefined,
  },
  {
    name: 'PLATFORM_WORKER_HOST_KEY',
    pick: (e) => e.remoteWorkerHost?.key.length,
    base: { PLATFORM_WORKER_HOST: '[fd00::1]:7340' },
    fallbackBase: {},
    good: [KEY32, 32],
    bad: KEY16,
    fallback: undefined,
  },
  {
    name: 'PLATFORM_WORKER_HOST_PORT',
    role: 'worker-host',
    pick: (e) => e.workerHost.port,
    good: ['7400', 7400],
    bad: '0',
    fallback: 7340,
  },
  {
    name: 'PLATFORM_WORKER_HOST_BIND',
    role: 'worker-host',
    pick: (e) => e.workerHost.bind,
    good: ['10.0.0.5', '10.0.0.5'],
    bad: 'bad host!',
    fallback: '0.0.0.0',
  },
  { name: 'PLATFORM_CONFIG', pick: (e) => e.configSource.inline, good: ['{"services":[]}', true], fallback: false },
  {
    name: 'PLATFORM_CONFIG_FILE',
    pick: (e) => e.configSource.file,
    good: ['/etc/cairn/config.yaml', '/etc/cairn/config.yaml'],
    fallback: undefined,
  },
  { name: 'PLATFORM_PROMPT_CACHE', pick: (e) => e.promptCache, good: ['0', false], bad: 'sometimes', fallback: true },
  { name: 'PLATFORM_PROMPT_CACHE_TTL', pick: (e) => e.promptCacheTtl, good: ['1h', '1h'], bad: '30m', fallback: '5m' },
  {
    name: 'PLATFORM_API_BASE_URL',
    pick: (e) => e.rubricModel?.apiBaseUrl,
    base: { PLATFORM_API_KEY: 'k', PLATFORM_MODEL: 'm' },
    fallbackBase: {},
    good: ['https://m.example/v1', 'https://m.example/v1'],
    bad: 'models',
    fallback: undefined,
  },
  {
    name: 'PLATFORM_API_KEY',
    pick: (e) => e.rubricModel?.apiKey,
    base: { PLATFORM_API_BASE_URL: 'https://m.example', PLATFORM_MODEL: 'm' },
    fallbackBase: {},
    good: ['sk-1', 'sk-1'],
    fallback: undefined,
  },
  {
    name: 'PLATFORM_MODEL',
    pick: (e) => e.rubricModel?.model,
    base: { PLATFORM_API_BASE_URL: 'https://m.example', PLATFORM_API_KEY: 'k' },
    fallbackBase: {},
    good: ['judge-2', 'judge-2'],
    fallback: undefined,
  },
  { name: 'ACCESS_LOG', pick: (e) => e.accessLog, good: ['all', 'all'], fallback: 'errors' },
  { name: 'API_PORT', pick: (e) => e.apiPort, good: ['3100', 3100], bad: 'http', fallback: 3001 },
  {
    name: 'PLATFORM_EMBEDDED_QUEUE_MAXMEMORY',
    pick: (e) => e.embeddedQueue.maxMemory,
    good: ['1gb', '1gb'],
    bad: 'lots',
    fallback: '256mb',
  },
  {
    name: 'PLATFORM_EMBEDDED_QUEUE',
    pick: (e) => e.embeddedQueue.enabled,
    good: ['on', true],
    bad: 'maybe',
    fallback: false,
  },
  {
    name: 'PLATFORM_TRUSTED_PROXIES',
    pick: (e) => e.trustedProxies,
    good: ['10.0.0.0/8, ,192.168.1.1', ['10.0.0.0/8', '192.168.1.1']],
    bad: '10.0.0.1,evil-host',
    fallback: [],
  },
  { name: 'MCP_RATE_LIMIT_MAX', pick: (e) => e.mcpRateLimitMax, good: ['240', 240], bad: '1e3', fallback: 120 },
];

function parse(row: Row, extra: EnvRecord, value?: string) {
  const role = row.role ?? 'api';
  const base = role === 'worker-host' ? { PLATFORM_WORKER_HOST_KEY: KEY32 } : BASE;
  const env: EnvRecord = { ...base, ...extra };
  if (value === undefined) delete env[row.name];
  else env[row.name] = value;
  return parsePlatformEnv(env, { role });
}

const refusal = configRefusal;

describe('every deployment setting: good value, bad value, default', () => {
  it.each(rows.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const parsed = parse(row, row.base ?? {}, row.good[0]);
    expect(row.pick(parsed)).toEqual(row.good[1]);
    expect(Value.Check(PlatformEnv, parsed)).toBe(true);
    if (row.bad !== undefined) {
      const error = refusal(() => parse(row, row.base ?? {}, row.bad));
      expect(error.message.split('\n')[0].startsWith(`${row.name} `)).toBe(true);
      expect(error.message).not.toContain(row.bad);
    }
    if (row.fallback === REQUIRED) {
      expect(refusal(() => parse(row, row.base ?? {})).message.startsWith(`${row.name} `)).toBe(true);
    } else {
      expect(row.pick(parse(row, row.fallbackBase ?? row.base ?? {}))).toEqual(row.fallback);
    }
  });

  it('covers every variable the model parses', () => {
    expect(new Set(rows.map((row) => row.name)).size).toBe(rows.length);
    expect(rows.length).toBeGreaterThanOrEqual(64);
  });
});

describe('values with more than one rule', () => {
  it(
    'ACCESS_LOG with another value reads as errors and returns a warning ' + 'line naming the variable, not the value',
    () => {
      const parsed = parsePlatformEnv({ ...BASE, ACCESS_LOG: 'verbose' }, { role: 'api' });
      expect(parsed.accessLog).toBe('errors');
      expect(parsed.warnings).toEqual([expect.stringMatching(/^ACCESS_LOG /)]);
      expect(parsed.warnings.join('\n')).not.toContain('verbose');
    },
  );

  it('PLATFORM_ALLOW_PRIVATE_URLS is ignored in production (effective false, with a warning)', () => {
    const production = {
      ...BASE,
      ...OIDC,
      NODE_ENV: 'production',
      MASTER_KEY: KEY32,
      QUEUE_URL: 'redis://q:6379',
      PLATFORM_ALLOW_PRIVATE_URLS: 'true',
    };
    const parsed = parsePlatformEnv(production, { role: 'dispatcher' });
    expect(parsed.allowPrivateUrls).toBe(false);
    expect(parsed.warnings.some((line) => line.startsWith('PLATFORM_ALLOW_PRIVATE_URLS'))).toBe(true);
  });

  it('MASTER_KEY that is not base64 stops boot without echoing it', () => {
    const error = refusal(() => parsePlatformEnv({ ...BASE, MASTER_KEY: 'not*base64' }, { role: 'api' }));
    expect(error.message).toMatch(/^MASTER_KEY /);
    expect(error.message).not.toContain('not*base64');
  });

  it('PLATFORM_CLOUD_SECRETS_PREFIX longer than 200 characters is refused', () => {
    const long = `${'a'.repeat(200)}/`;
    expect(
      refusal(() => parsePlatformEnv({ ...BASE, ...CLOUD, PLATFORM_CLOUD_SECRETS_PREFIX: long }, { role: 'api' }))
        .message,
    ).toMatch(/^PLATFORM_CLOUD_SECRETS_PREFIX .*200/);
  });

  it(
    'APP_BASE_URL defaults to the first CORS_ALLOWED_ORIGINS entry; OBJSTORE_ENDPOINT file:// selects the ' +
      'embedded store',
    () => {
      const parsed = parsePlatformEnv({
        ...BASE,
        CORS_ALLOWED_ORIGINS: ' ,https://b.example/,https://c.example',
        OBJSTORE_ENDPOINT: 'file:///data/objects',
      }, { role: 'api' });
      expect(parsed.appBaseUrl).toBe('https://b.example');
      expect(parsed.stores.objects).toEqual({ kind: 'fs', root: '/data/objects', bucket: 'cairn', prefix: '' });
    },
  );

  it(
    'warns when PLATFORM_TRIGGER_POLL_CONCURRENCY is not below the call ' + 'slots and when email verification is off',
    () => {
      const parsed = parsePlatformEnv({
        ...BASE,
        PLATFORM_TRIGGER_POLL_CONCURRENCY: '6',
        PLATFORM_EMAIL_VERIFICATION: 'off',
      }, { role: 'api' });
      expect(parsed.warnings.map((line) => line.split(' ')[0])).toEqual([
        'PLATFORM_EMAIL_VERIFICATION',
        'PLATFORM_TRIGGER_POLL_CONCURRENCY',
      ]);
    },
  );

  it('semantic-mcp is not held to the production requirements (no sign-in, key or queue)', () => {
    const parsed = parsePlatformEnv({ ...BASE, NODE_ENV: 'production' }, { role: 'semantic-mcp' });
    expect(parsed.signIn).toBeUndefined();
    expect(parsed.stores.queueUrl).toBeUndefined();
  });
});
