/**
 * Schemas of the typed deployment settings every process gets from `parsePlatformEnv`.
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables).
 */
import { type Static, Type } from '@sinclair/typebox';

const Optional = Type.Optional;
const Str = Type.String();

/** development, test or production. Source: spec/platform-service.md § Deployment settings (NODE_ENV) */
export const NodeEnv = Type.Union([Type.Literal('development'), Type.Literal('test'), Type.Literal('production')]);
/**
 * NODE_ENV value.
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables)
 */
export type NodeEnv = Static<typeof NodeEnv>;

/** The process reading the environment. Source: spec/platform-service.md § Processes, § Rules 10 */
export const ProcessRole = Type.Union([
  Type.Literal('api'),
  Type.Literal('dispatcher'),
  Type.Literal('worker-host'),
  Type.Literal('semantic-mcp'),
]);
/**
 * Process role.
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables)
 */
export type ProcessRole = Static<typeof ProcessRole>;

/** Document store: embedded SQLite file or MongoDB. Source: spec/platform-service.md § Deployment settings (DOCDB_URI)
 */
export const DocumentStoreSettings = Type.Union([
  Type.Object({ kind: Type.Literal('sqlite'), path: Str }),
  Type.Object({ kind: Type.Literal('mongodb'), uri: Str }),
]);

/** Object store: a local directory (embedded) or S3. Source: spec/platform-service.md § Deployment settings
 * (OBJSTORE_*) */
export const ObjectStoreSettings = Type.Union([
  Type.Object({ kind: Type.Literal('fs'), root: Str, bucket: Str, prefix: Str }),
  Type.Object({
    kind: Type.Literal('s3'),
    bucket: Str,
    prefix: Str,
    region: Str,
    endpoint: Optional(Str),
    forcePathStyle: Type.Boolean(),
    credentials: Optional(Type.Object({ accessKeyId: Str, secretAccessKey: Str })),
  }),
]);

/** All store settings. Source: spec/platform-service.md § Deployment settings (DOCDB_URI, OBJSTORE_*, QUEUE_URL) */
export const StoreSettings = Type.Object({
  documents: DocumentStoreSettings,
  objects: ObjectStoreSettings,
  /** Queue store URL (redis:// or rediss://); undefined when none is configured. */
  queueUrl: Optional(Str),
});

/** Platform sign-in, one mode per deployment. Source: spec/platform-service.md § Platform sign-in modes */
export const SignInSettings = Type.Union([
  Type.Object({ mode: Type.Literal('dev-user') }),
  Type.Object({
    mode: Type.Literal('oidc'),
    issuer: Str,
    clientId: Str,
    audience: Optional(Str),
    signOutUrl: Optional(Str),
    idpDbConnection: Optional(Str),
  }),
  Type.Object({ mode: Type.Literal('cloud-alb'), albArn: Str, albRegion: Str, signOutUrl: Str, sessionCookie: Str }),
]);
/**
 * Sign-in settings.
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables)
 */
export type SignInSettings = Static<typeof SignInSettings>;

/** Identity checks shared by every sign-in mode. Source: spec/platform-service.md § Authentication rules 4–5 */
export const IdentitySettings = Type.Object({
  emailVerification: Type.Boolean(),
  dnsVerification: Type.Boolean(),
  managedDomainClaim: Str,
});

/** Where credential secrets live. Source: spec/platform-service.md § Deployment settings (PLATFORM_SECRET_STORE) */
export const SecretStoreSettings = Type.Union([
  Type.Object({ kind: Type.Literal('db'), masterKey: Optional(Type.Uint8Array()) }),
  Type.Object({
    kind: Type.Literal('cloud-secrets-manager'),
    region: Str,
    prefix: Str,
    kmsKeyId: Optional(Str),
    endpoint: Optional(Str),
  }),
]);
/**
 * Secret store settings.
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables)
 */
export type SecretStoreSettings = Static<typeof SecretStoreSettings>;

const WorkerKindLimits = Type.Object({
  memoryMb: Type.Integer(),
  wallTimeSeconds: Type.Integer(),
  slots: Type.Integer(),
});

/**
 * Worker limits of a process, the inspector switch and `isolation` (PLATFORM_WORKER_ISOLATION: `namespaces`, the
 * default, runs each worker in bubblewrap's network, PID and user namespaces; `permission-only` opts out, under
 * Node's permission model alone, with a warning line). Source: spec/platform-service.md § Rules 7–8, § Limits;
 * docs/decisions.md D17 § 3
 */
export const WorkerLimits = Type.Object({
  turn: WorkerKindLimits,
  call: WorkerKindLimits,
  inspect: Type.Boolean(),
  isolation: Type.Union([Type.Literal('namespaces'), Type.Literal('permission-only')]),
});
/**
 * Worker limits.
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables)
 */
export type WorkerLimits = Static<typeof WorkerLimits>;

/** Settings the worker environment is built from. */
const WorkerInputs = {
  nodeEnv: NodeEnv,
  production: Type.Boolean(),
  appVersion: Str,
  promptCache: Type.Boolean(),
  promptCacheTtl: Type.Union([Type.Literal('5m'), Type.Literal('1h')]),
  allowPrivateUrls: Type.Boolean(),
  workers: WorkerLimits,
  warnings: Type.Array(Str),
};

/**
 * Typed settings of the API, the dispatcher and semantic-mcp.
 * `signIn` is undefined only on semantic-mcp in production without PLATFORM_SIGN_IN (it signs nobody in).
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables)
 */
export const ServiceEnv = Type.Object({
  role: Type.Union([Type.Literal('api'), Type.Literal('dispatcher'), Type.Literal('semantic-mcp')]),
  ...WorkerInputs,
  port: Type.Integer(),
  apiHost: Str,
  apiPort: Type.Integer(),
  corsAllowedOrigins: Type.Array(Str),
  appBaseUrl: Optional(Str),
  allowNewerData: Type.Boolean(),
  userRatePerMinute: Type.Integer(),
  stores: StoreSettings,
  scratchDir: Str,
  templateRepo: Str,
  skillRegistriesDir: Str,
  signIn: Optional(SignInSettings),
  identity: IdentitySettings,
  secretStore: SecretStoreSettings,
  oauth2RedirectUrl: Optional(Str),
  triggerPollConcurrency: Type.Integer(),
  /** Seconds a stopping dispatcher lets running turns finish before ending them interrupted (1–90; default 20). */
  stopGraceSeconds: Type.Integer(),
  /** How long failed jobs, sessions, claimed firing ids and the call log are kept (core/config/retention-settings.ts).
   */
  retention: Type.Object({
    failedJobs: Type.Object({ kept: Type.Integer(), days: Type.Integer() }),
    sessionDays: Type.Integer(),
    deliveryDays: Type.Integer(),
    callLogDays: Type.Integer(),
  }),
  remoteWorkerHost: Optional(Type.Object({ hostname: Str, port: Type.Integer(), key: Type.Uint8Array() })),
  configSource: Type.Object({ inline: Type.Boolean(), file: Optional(Str) }),
  rubricModel: Optional(Type.Object({ apiBaseUrl: Str, apiKey: Str, model: Str })),
  accessLog: Type.Union([Type.Literal('errors'), Type.Literal('all'), Type.Literal('off')]),
  embeddedQueue: Type.Object({ enabled: Type.Boolean(), maxMemory: Str }),
  trustedProxies: Type.Array(Str),
  mcpRateLimitMax: Type.Integer(),
});
/**
 * Settings of the API, the dispatcher and semantic-mcp.
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables)
 */
export type ServiceEnv = Static<typeof ServiceEnv>;

/**
 * ServiceEnv of a dispatching process (API, dispatcher): sign-in is always resolved.
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables)
 */
export type DispatchingEnv = ServiceEnv & { role: 'api' | 'dispatcher'; signIn: SignInSettings };

/**
 * Typed settings of a worker host: no store, key other than its own, config or cloud credential.
 *
 * Source: spec/platform-service.md § Rules 10
 */
export const WorkerHostEnv = Type.Object({
  role: Type.Literal('worker-host'),
  ...WorkerInputs,
  workerHost: Type.Object({ key: Type.Uint8Array(), port: Type.Integer(), bind: Str }),
});
/**
 * Settings of a worker host.
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables)
 */
export type WorkerHostEnv = Static<typeof WorkerHostEnv>;

/** Typed settings of any process. Source: spec/platform-service.md § Deployment settings */
export const PlatformEnv = Type.Union([ServiceEnv, WorkerHostEnv]);
/**
 * Settings of any process.
 *
 * Source: spec/platform-service.md § Deployment settings (environment variables)
 */
export type PlatformEnv = Static<typeof PlatformEnv>;
