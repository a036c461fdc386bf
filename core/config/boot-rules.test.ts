/**
 * Every row of the boot-rule table of spec/platform-service.md § Deployment settings: the rule's own function
 * refuses the failing environment and accepts the passing one, and a whole boot (parsePlatformEnv) refuses with
 * a first line naming the variable and never a value.
 */
import { describe, expect, it } from 'vitest';
import {
  refuseOtherSecretStoreVariables,
  refuseOtherSignInModeVariables,
  refuseWorkerInspectInProduction,
  requireAppBaseUrl,
  requireCloudAlbSettings,
  requireCloudSecretsSettings,
  requireObjectStoreKeyPair,
  requireOidcSettings,
  requireProductionMasterKey,
  requireProductionQueue,
  requireProductionSignIn,
  requireRubricModelTogether,
  requireStoreAddresses,
} from './boot-rules.ts';
import type { EnvRecord } from './env-values.ts';
import { parsePlatformEnv } from './platform-env.ts';
import type { ProcessRole } from './platform-env-model.ts';
import { requireWorkerHostKeyPairing } from './worker-host-rules.ts';
import { configRefusal } from '../testing/config-refusal.ts';

const KEY32 = btoa('k'.repeat(32));
const DEV: EnvRecord = { DOCDB_URI: 'mongodb://db.example/cairn', OBJSTORE_BUCKET: 'cairn' };
const OIDC: EnvRecord = {
  PLATFORM_SIGN_IN: 'oidc',
  PLATFORM_OIDC_ISSUER: 'https://id.example/',
  PLATFORM_OIDC_CLIENT_ID: 'web',
};
const ALB: EnvRecord = {
  PLATFORM_SIGN_IN: 'cloud-alb',
  PLATFORM_CLOUD_ALB_ARN: 'arn:aws:elasticloadbalancing:eu-west-1:1:loadbalancer/app/c/1',
  PLATFORM_CLOUD_ALB_SIGN_OUT_URL: 'https://auth.example/logout',
};
const PROD: EnvRecord = {
  ...DEV,
  ...OIDC,
  NODE_ENV: 'production',
  MASTER_KEY: KEY32,
  QUEUE_URL: 'rediss://u:secret-pw@q.example:6380',
};
const without = (env: EnvRecord, ...names: string[]) =>
  Object.fromEntries(Object.entries(env).filter(([name]) => !names.includes(name)));

interface RuleRow {
  row: string;
  variable: string;
  check: (env: EnvRecord) => void;
  failing: EnvRecord;
  passing: EnvRecord;
  role?: ProcessRole;
  /** A value in the failing environment that no message may show. */
  secret?: string;
}

/** Fixed-set variables whose spec words (production, oidc, cloud-alb …) rule texts quote as rules, not as values. */
const MODE_SELECTORS = ['NODE_ENV', 'PLATFORM_SIGN_IN', 'PLATFORM_SECRET_STORE', 'PLATFORM_WORKER_INSPECT'];
const prodCheck = (rule: (env: EnvRecord, production: boolean) => void) => (env: EnvRecord) =>
  rule(env, env.NODE_ENV === 'production');

const rules: RuleRow[] = [
  {
    row: 'always required',
    variable: 'DOCDB_URI',
    check: requireStoreAddresses,
    failing: without(DEV, 'DOCDB_URI'),
    passing: DEV,
  },
  {
    row: 'always required',
    variable: 'OBJSTORE_BUCKET',
    check: requireStoreAddresses,
    failing: without(DEV, 'OBJSTORE_BUCKET'),
    passing: DEV,
  },
  {
    row: 'both or neither',
    variable: 'OBJSTORE_SECRET_ACCESS_KEY',
    check: requireObjectStoreKeyPair,
    failing: { ...DEV, OBJSTORE_ACCESS_KEY_ID: 'AKIDVALUE' },
    passing: { ...DEV, OBJSTORE_ACCESS_KEY_ID: 'a', OBJSTORE_SECRET_ACCESS_KEY: 'b' },
    secret: 'AKIDVALUE',
  },
  {
    row: 'both or neither',
    variable: 'OBJSTORE_ACCESS_KEY_ID',
    check: requireObjectStoreKeyPair,
    failing: { ...DEV, OBJSTORE_SECRET_ACCESS_KEY: 'sekrit-value' },
    passing: DEV,
    secret: 'sekrit-value',
  },
  {
    row: 'production: sign-in required',
    variable: 'PLATFORM_SIGN_IN',
    check: prodCheck(requireProductionSignIn),
    failing: without(PROD, 'PLATFORM_SIGN_IN', 'PLATFORM_OIDC_ISSUER', 'PLATFORM_OIDC_CLIENT_ID'),
    passing: PROD,
  },
  {
    row: 'production: never dev-user',
    variable: 'PLATFORM_SIGN_IN',
    check: prodCheck(requireProductionSignIn),
    failing: { ...without(PROD, 'PLATFORM_OIDC_ISSUER', 'PLATFORM_OIDC_CLIENT_ID'), PLATFORM_SIGN_IN: 'dev-user' },
    passing: { ...DEV, PLATFORM_SIGN_IN: 'dev-user' },
    secret: 'dev-user',
  },
  {
    row: 'production: MASTER_KEY with the db store',
    variable: 'MASTER_KEY',
    check: prodCheck(requireProductionMasterKey),
    failing: without(PROD, 'MASTER_KEY'),
    passing: {
      ...without(PROD, 'MASTER_KEY'),
      PLATFORM_SECRET_STORE: 'cloud-secrets-manager',
      PLATFORM_CLOUD_SECRETS_REGION: 'eu-west-1',
    },
  },
  {
    row: 'production: QUEUE_URL',
    variable: 'QUEUE_URL',
    check: prodCheck(requireProductionQueue),
    failing: without(PROD, 'QUEUE_URL'),
    passing: PROD,
  },
  {
    row: 'oidc requires',
    variable: 'PLATFORM_OIDC_ISSUER',
    check: requireOidcSettings,
    failing: { ...DEV, ...without(OIDC, 'PLATFORM_OIDC_ISSUER') },
    passing: { ...DEV, ...OIDC },
  },
  {
    row: 'oidc requires',
    variable: 'PLATFORM_OIDC_CLIENT_ID',
    check: requireOidcSettings,
    failing: { ...DEV, ...without(OIDC, 'PLATFORM_OIDC_CLIENT_ID') },
    passing: { ...DEV, ...OIDC },
  },
  {
    row: 'cloud-alb requires',
    variable: 'PLATFORM_CLOUD_ALB_ARN',
    check: requireCloudAlbSettings,
    failing: { ...DEV, ...without(ALB, 'PLATFORM_CLOUD_ALB_ARN') },
    passing: { ...DEV, ...ALB },
  },
  {
    row: 'cloud-alb requires',
    variable: 'PLATFORM_CLOUD_ALB_SIGN_OUT_URL',
    check: requireCloudAlbSettings,
    failing: { ...DEV, ...without(ALB, 'PLATFORM_CLOUD_ALB_SIGN_OUT_URL') },
    passing: { ...DEV, ...ALB },
  },
  {
    row: 'cloud-secrets-manager requires',
    variable: 'PLATFORM_CLOUD_SECRETS_REGION',
    check: requireCloudSecretsSettings,
    failing: { ...DEV, PLATFORM_SECRET_STORE: 'cloud-secrets-manager' },
    passing: { ...DEV, PLATFORM_SECRET_STORE: 'cloud-secrets-manager', PLATFORM_CLOUD_SECRETS_REGION: 'eu-west-1' },
  },
  {
    row: 'only the named mode: OIDC without oidc',
    variable: 'PLATFORM_OIDC_AUDIENCE',
    check: refuseOtherSignInModeVariables,
    failing: { ...DEV, PLATFORM_OIDC_AUDIENCE: 'https://aud.example' },
    passing: { ...DEV, ...OIDC, PLATFORM_OIDC_AUDIENCE: 'https://aud.example' },
    secret: 'aud.example',
  },
  {
    row: 'only the named mode: IDP without oidc',
    variable: 'PLATFORM_IDP_DB_CONNECTION',
    check: refuseOtherSignInModeVariables,
    failing: { ...DEV, ...ALB, PLATFORM_IDP_DB_CONNECTION: 'users-db' },
    passing: { ...DEV, ...OIDC, PLATFORM_IDP_DB_CONNECTION: 'users-db' },
    secret: 'users-db',
  },
  {
    row: 'only the named mode: CLOUD_ALB without cloud-alb',
    variable: 'PLATFORM_CLOUD_ALB_SESSION_COOKIE',
    check: refuseOtherSignInModeVariables,
    failing: { ...DEV, ...OIDC, PLATFORM_CLOUD_ALB_SESSION_COOKIE: 'Crumb' },
    passing: { ...DEV, ...ALB, PLATFORM_CLOUD_ALB_SESSION_COOKIE: 'Crumb' },
    secret: 'Crumb',
  },
  {
    row: 'only the named store: MASTER_KEY with the cloud store',
    variable: 'MASTER_KEY',
    check: refuseOtherSecretStoreVariables,
    failing: {
      ...DEV,
      MASTER_KEY: KEY32,
      PLATFORM_SECRET_STORE: 'cloud-secrets-manager',
      PLATFORM_CLOUD_SECRETS_REGION: 'eu-west-1',
    },
    passing: { ...DEV, MASTER_KEY: KEY32 },
    secret: KEY32,
  },
  {
    row: 'only the named store: CLOUD_SECRETS without it',
    variable: 'PLATFORM_CLOUD_SECRETS_REGION',
    check: refuseOtherSecretStoreVariables,
    failing: { ...DEV, PLATFORM_CLOUD_SECRETS_REGION: 'eu-west-1' },
    passing: DEV,
    secret: 'eu-west-1',
  },
  {
    row: 'worker host: host requires its key',
    variable: 'PLATFORM_WORKER_HOST_KEY',
    check: (env) => requireWorkerHostKeyPairing(env, 'api'),
    failing: { ...DEV, PLATFORM_WORKER_HOST: 'wh.internal:7340' },
    passing: { ...DEV, PLATFORM_WORKER_HOST: 'wh.internal:7340', PLATFORM_WORKER_HOST_KEY: KEY32 },
  },
  {
    row: 'worker host: key without host on a dispatching process',
    variable: 'PLATFORM_WORKER_HOST_KEY',
    role: 'dispatcher',
    check: (env) => requireWorkerHostKeyPairing(env, 'dispatcher'),
    failing: { ...DEV, PLATFORM_WORKER_HOST_KEY: KEY32 },
    passing: DEV,
    secret: KEY32,
  },
  {
    row: 'worker host: key required on the host',
    variable: 'PLATFORM_WORKER_HOST_KEY',
    role: 'worker-host',
    check: (env) => requireWorkerHostKeyPairing(env, 'worker-host'),
    failing: {},
    passing: { PLATFORM_WORKER_HOST_KEY: KEY32 },
  },
  {
    row: 'rubric model: all three or none',
    variable: 'PLATFORM_MODEL',
    check: requireRubricModelTogether,
    failing: { ...DEV, PLATFORM_API_BASE_URL: 'https://m.example', PLATFORM_API_KEY: 'sk-live-123' },
    passing: DEV,
    secret: 'sk-live-123',
  },
  {
    row: 'inspector refused in production',
    variable: 'PLATFORM_WORKER_INSPECT',
    check: prodCheck(refuseWorkerInspectInProduction),
    failing: { ...PROD, PLATFORM_WORKER_INSPECT: 'on' },
    passing: { ...DEV, PLATFORM_WORKER_INSPECT: 'on' },
  },
  {
    row: 'public origin needed by API and dispatcher',
    variable: 'APP_BASE_URL',
    check: (env) => requireAppBaseUrl(env, 'api'),
    failing: { ...DEV, CORS_ALLOWED_ORIGINS: ' , ' },
    passing: { ...DEV, CORS_ALLOWED_ORIGINS: ' , ', APP_BASE_URL: 'https://cairn.example' },
  },
];

const refusal = configRefusal;

describe('boot rules (one function per rule)', () => {
  it.each(rules.map((rule) => [`${rule.row} → ${rule.variable}`, rule] as const))('%s', (_label, rule) => {
    const own = refusal(() => rule.check(rule.failing));
    expect(own.message.split('\n')[0].startsWith(rule.variable)).toBe(true);
    expect(() => rule.check(rule.passing)).not.toThrow();
    const boot = refusal(() => parsePlatformEnv(rule.failing, { role: rule.role ?? 'api' }));
    expect(boot.message.split('\n')[0].startsWith(rule.variable)).toBe(true);
    const free = Object.entries(rule.failing).filter(([name]) => !MODE_SELECTORS.includes(name)).map(([, value]) =>
      value
    );
    for (
      const value of [rule.secret, ...free.filter((v) => (v ?? '').length >= 5)].filter((v): v is string =>
        typeof v === 'string'
      )
    ) {
      expect(boot.message).not.toContain(value);
    }
    expect(() => parsePlatformEnv(rule.passing, { role: rule.role ?? 'api' })).not.toThrow();
  });

  it('mode-only and store-only refusals name every offending variable', () => {
    const error = refusal(() =>
      refuseOtherSignInModeVariables({ PLATFORM_OIDC_ISSUER: 'https://x', PLATFORM_IDP_DB_CONNECTION: 'y' })
    );
    expect(error.message.split('\n')[0]).toMatch(/^PLATFORM_IDP_DB_CONNECTION, PLATFORM_OIDC_ISSUER are set/);
    const store = refusal(() =>
      refuseOtherSecretStoreVariables({ PLATFORM_CLOUD_SECRETS_PREFIX: 'a/', PLATFORM_CLOUD_SECRETS_REGION: 'r' })
    );
    expect(store.message).toMatch(/^PLATFORM_CLOUD_SECRETS_PREFIX, PLATFORM_CLOUD_SECRETS_REGION are set/);
  });

  it('the production requirements apply to the API and the dispatcher, not to semantic-mcp', () => {
    const bare = { ...DEV, NODE_ENV: 'production' };
    for (const role of ['api', 'dispatcher'] as const) {
      expect(refusal(() => parsePlatformEnv(bare, { role })).message).toMatch(/^PLATFORM_SIGN_IN /);
    }
    expect(() => parsePlatformEnv(bare, { role: 'semantic-mcp' })).not.toThrow();
  });

  it('a key without a worker host is left alone on semantic-mcp (it dispatches nothing)', () => {
    expect(() => requireWorkerHostKeyPairing({ PLATFORM_WORKER_HOST_KEY: KEY32 }, 'semantic-mcp')).not.toThrow();
  });

  it('a value rule is checked before the cross-field rules that depend on it', () => {
    const error = refusal(() =>
      parsePlatformEnv({ ...DEV, PLATFORM_SIGN_IN: 'saml', PLATFORM_OIDC_ISSUER: 'https://x.example' }, { role: 'api' })
    );
    expect(error.message).toMatch(/^PLATFORM_SIGN_IN must be oidc, cloud-alb or dev-user/);
  });
});
