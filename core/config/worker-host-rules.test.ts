import { describe, expect, it } from 'vitest';
import { workerHostHolding } from './env-variables.ts';
import { parsePlatformEnv } from './platform-env.ts';
import { refuseWorkerHostHoldings } from './worker-host-rules.ts';
import { foreignWorkerVariables, WORKER_ENVIRONMENT_VARIABLES, workerEnvironment } from './worker-environment.ts';
import { configRefusal } from '../testing/config-refusal.ts';

const KEY32 = btoa('w'.repeat(40));

const refusal = configRefusal;

describe('worker-host guard', () => {
  const holdings = {
    DOCDB_URI: 'mongodb://user:pw-docdb@db.example/cairn',
    QUEUE_URL: 'rediss://u:pw-queue@q.example',
    OBJSTORE_BUCKET: 'bucket-name-x',
    OBJSTORE_SECRET_ACCESS_KEY: 'objstore-secret-x',
    MASTER_KEY: btoa('m'.repeat(32)),
    PLATFORM_API_KEY: 'sk-rubric-x',
    PLATFORM_SERVICE_SEMANTIC_TOKEN: 'service-token-x',
    PLATFORM_OAUTH_APP_GH_CLIENT_SECRET: 'oauth-secret-x',
    PLATFORM_CONFIG: '{"services":[]}',
    PLATFORM_CONFIG_FILE: '/etc/cairn/config.yaml',
    PLATFORM_CLOUD_SECRETS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'aws-secret-x',
    AWS_SESSION_TOKEN: 'aws-session-x',
    AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '/v2/credentials/x',
    GOOGLE_APPLICATION_CREDENTIALS: '/gcp.json',
  };

  it.each(Object.entries(holdings))('refuses %s, naming it and never its value', (name, value) => {
    const error = refusal(() =>
      parsePlatformEnv({ PLATFORM_WORKER_HOST_KEY: KEY32, [name]: value }, { role: 'worker-host' })
    );
    expect(error.message.split('\n')[0]).toContain(name);
    expect(error.message).not.toContain(value);
  });

  it('names each offending variable on the first line, with what each is', () => {
    const error = refusal(() =>
      refuseWorkerHostHoldings({ ...holdings, HOME: '/home/w' }, { configFileExists: false })
    );
    const first = error.message.split('\n')[0];
    for (const name of Object.keys(holdings)) expect(first).toContain(name);
    expect(first).not.toContain('HOME');
    expect(error.message).toContain('AWS_SECRET_ACCESS_KEY: cloud credential');
    for (const value of Object.values(holdings)) expect(error.message).not.toContain(value);
  });

  it('refuses a config file in its app directory (the bin tells whether it exists)', () => {
    const error = refusal(() =>
      parsePlatformEnv({ PLATFORM_WORKER_HOST_KEY: KEY32 }, { role: 'worker-host', configFileExists: true })
    );
    expect(error.message.split('\n')[0]).toContain('config.yaml');
    expect(() => refuseWorkerHostHoldings({}, { configFileExists: false })).not.toThrow();
  });

  it('leaves other variables alone and ignores empty ones', () => {
    const parsed = parsePlatformEnv(
      {
        PLATFORM_WORKER_HOST_KEY: KEY32,
        PATH: '/usr/bin',
        PLATFORM_SIGN_IN: 'oidc',
        DOCDB_URI: '',
        AWS_REGION: 'eu-west-1',
        NODE_ENV: 'production',
      },
      { role: 'worker-host' },
    );
    expect(parsed.workerHost).toEqual({ key: expect.any(Uint8Array), port: 7340, bind: '0.0.0.0' });
    expect(workerHostHolding('AWS_REGION')).toBeUndefined();
  });

  it('a worker host key shorter than 32 bytes is refused', () => {
    expect(
      refusal(() => parsePlatformEnv({ PLATFORM_WORKER_HOST_KEY: btoa('short') }, { role: 'worker-host' })).message,
    ).toMatch(/^PLATFORM_WORKER_HOST_KEY .*at least 32 bytes/);
  });
});

describe('workerEnvironment', () => {
  it('builds exactly the allowlist from parsed settings, in canonical spellings', () => {
    const parsed = parsePlatformEnv(
      {
        DOCDB_URI: 'sqlite:/tmp/d',
        OBJSTORE_BUCKET: 'b',
        MASTER_KEY: btoa('m'.repeat(32)),
        APP_VERSION: '1.2.3',
        PLATFORM_PROMPT_CACHE: 'no',
        PLATFORM_PROMPT_CACHE_TTL: '1h',
        PLATFORM_ALLOW_PRIVATE_URLS: 'true',
      },
      { role: 'dispatcher' },
    );
    const built = workerEnvironment(parsed, { kind: 'call', memoryLimitMb: parsed.workers.call.memoryMb });
    expect(built).toEqual({
      NODE_ENV: 'development',
      APP_VERSION: '1.2.3',
      PLATFORM_PROMPT_CACHE: 'off',
      PLATFORM_PROMPT_CACHE_TTL: '1h',
      PLATFORM_ALLOW_PRIVATE_URLS: 'true',
      PLATFORM_WORKER_KIND: 'call',
      PLATFORM_WORKER_MEMORY_MB: '512',
    });
    expect(Object.keys(built).sort()).toEqual([...WORKER_ENVIRONMENT_VARIABLES].sort());
    expect(foreignWorkerVariables(built)).toEqual([]);
    expect(foreignWorkerVariables({ ...built, MASTER_KEY: 'x' })).toEqual(['MASTER_KEY']);
  });

  it('carries the effective private-URL switch: false in production', () => {
    const built = workerEnvironment({
      nodeEnv: 'production',
      appVersion: 'dev',
      promptCache: true,
      promptCacheTtl: '5m',
      allowPrivateUrls: false,
    }, { kind: 'turn', memoryLimitMb: 1024 });
    expect(built.PLATFORM_ALLOW_PRIVATE_URLS).toBe('false');
    expect(built.PLATFORM_PROMPT_CACHE).toBe('on');
  });
});
