/**
 * A small local server speaking the cloud Secrets Manager wire protocol (AWS JSON 1.1,
 * `x-amz-target: secretsmanager.<Op>`) for the secret store tests: CreateSecret, PutSecretValue,
 * GetSecretValue, DeleteSecret and DescribeSecret. SigV4 signatures are accepted without being verified
 * (the Authorization header must be present). ListSecrets is answered with an error and recorded in
 * `violations`, which tests assert is empty: the platform never lists secrets.
 *
 * Source: ../shared/TOOLCHAIN.md § Libraries (no Secrets Manager emulator on npm); spec/platform-service.md § Authentication rule 11.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One stored version of a secret. */
export interface StoredVersion {
  versionId: string;
  secretString: string;
  createdAt: Date;
}

/** One stored secret. */
export interface StoredSecret {
  name: string;
  arn: string;
  kmsKeyId?: string;
  /** Oldest first; the last is AWSCURRENT. */
  versions: StoredVersion[];
  deletedDate?: Date;
  recoveryWindowInDays?: number;
}

/** One request the server received. */
export interface RecordedRequest {
  operation: string;
  body: Record<string, unknown>;
}

/** A running server. */
export interface SecretsManagerServer {
  /** Endpoint URL for the SDK client (`http://127.0.0.1:<port>`). */
  endpoint: string;
  /** Every well-formed request, in order. */
  requests: RecordedRequest[];
  /** Secrets by name. */
  secrets: Map<string, StoredSecret>;
  /** Protocol breaches: a ListSecrets call, a missing target or signature. Tests expect none. */
  violations: string[];
  /** Number of requests for `operation` (all operations when omitted). */
  count(operation?: string): number;
  stop(): Promise<void>;
}

type Handler = (body: Record<string, unknown>, secrets: Map<string, StoredSecret>) => Record<string, unknown>;

class ServiceError extends Error {
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

const region = 'us-east-1';
const seconds = (date: Date) => date.getTime() / 1000;

/** Starts the server on a random loopback port. */
export async function startSecretsManagerServer(): Promise<SecretsManagerServer> {
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  const secrets = new Map<string, StoredSecret>();
  const server = createServer((req, res) => {
    void handle(req, res, { requests, violations, secrets });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    secrets,
    violations,
    count: (operation) => requests.filter((r) => operation === undefined || r.operation === operation).length,
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, state: { requests: RecordedRequest[]; violations: string[]; secrets: Map<string, StoredSecret> }): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const target = String(req.headers['x-amz-target'] ?? '');
  const operation = target.startsWith('secretsmanager.') ? target.slice('secretsmanager.'.length) : '';
  try {
    if (req.method !== 'POST' || operation === '') {
      state.violations.push(`request without an x-amz-target of secretsmanager.<Op>: ${req.method} ${req.url} target=${target}`);
      throw new ServiceError('UnknownOperationException', 'x-amz-target must be secretsmanager.<Operation>');
    }
    if (!String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 ')) {
      state.violations.push(`${operation} without a SigV4 Authorization header`);
      throw new ServiceError('MissingAuthenticationTokenException', 'Request is missing Authentication Token');
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    state.requests.push({ operation, body });
    if (operation === 'ListSecrets') {
      state.violations.push('ListSecrets was called: the platform must never list secrets');
      throw new ServiceError('AccessDeniedException', 'ListSecrets is not allowed in this test');
    }
    const handler = handlers[operation];
    if (!handler) throw new ServiceError('UnknownOperationException', `Operation ${operation} is not served by the test server`);
    reply(res, 200, handler(body, state.secrets));
  } catch (error) {
    const failure = error instanceof ServiceError ? error : new ServiceError('InternalServiceError', String(error));
    res.setHeader('x-amzn-ErrorType', failure.type);
    reply(res, failure.type === 'InternalServiceError' ? 500 : 400, { __type: failure.type, Message: failure.message });
  }
}

function reply(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
  res.end(JSON.stringify(body));
}

/** The secret named or ARN'd by `SecretId`. @throws ResourceNotFoundException */
function find(secrets: Map<string, StoredSecret>, body: Record<string, unknown>): StoredSecret {
  const id = String(body.SecretId ?? '');
  const secret = secrets.get(id) ?? [...secrets.values()].find((s) => s.arn === id);
  if (!secret) throw new ServiceError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
  return secret;
}

function live(secret: StoredSecret, action: string): StoredSecret {
  if (secret.deletedDate) throw new ServiceError('InvalidRequestException', `You can't perform this operation on the secret because it was marked for deletion (${action}).`);
  return secret;
}

function addVersion(secret: StoredSecret, body: Record<string, unknown>): StoredVersion {
  if (typeof body.SecretString !== 'string') throw new ServiceError('InvalidParameterException', 'SecretString is required by this test server');
  const version = { versionId: String(body.ClientRequestToken ?? randomUUID()), secretString: body.SecretString, createdAt: new Date() };
  secret.versions.push(version);
  return version;
}

const handlers: Record<string, Handler> = {
  CreateSecret(body, secrets) {
    const name = String(body.Name ?? '');
    const existing = secrets.get(name);
    if (existing?.deletedDate) throw new ServiceError('InvalidRequestException', "You can't create this secret because a secret with this name is already scheduled for deletion.");
    if (existing) throw new ServiceError('ResourceExistsException', `The operation failed because the secret ${name} already exists.`);
    const secret: StoredSecret = { name, arn: `arn:aws:secretsmanager:${region}:000000000000:secret:${name}-${randomUUID().slice(0, 6)}`, versions: [], ...(typeof body.KmsKeyId === 'string' ? { kmsKeyId: body.KmsKeyId } : {}) };
    const version = addVersion(secret, body);
    secrets.set(name, secret);
    return { ARN: secret.arn, Name: name, VersionId: version.versionId };
  },
  PutSecretValue(body, secrets) {
    const secret = live(find(secrets, body), 'PutSecretValue');
    const version = addVersion(secret, body);
    return { ARN: secret.arn, Name: secret.name, VersionId: version.versionId, VersionStages: ['AWSCURRENT'] };
  },
  GetSecretValue(body, secrets) {
    const secret = live(find(secrets, body), 'GetSecretValue');
    const version = body.VersionId ? secret.versions.find((v) => v.versionId === body.VersionId) : secret.versions.at(-1);
    if (!version) throw new ServiceError('ResourceNotFoundException', "Secrets Manager can't find the specified secret value for VersionId.");
    const current = version === secret.versions.at(-1);
    return { ARN: secret.arn, Name: secret.name, VersionId: version.versionId, SecretString: version.secretString, VersionStages: current ? ['AWSCURRENT'] : [], CreatedDate: seconds(version.createdAt) };
  },
  DeleteSecret(body, secrets) {
    const secret = find(secrets, body);
    if (body.ForceDeleteWithoutRecovery === true) {
      secrets.delete(secret.name);
      return { ARN: secret.arn, Name: secret.name, DeletionDate: seconds(new Date()) };
    }
    const days = typeof body.RecoveryWindowInDays === 'number' ? body.RecoveryWindowInDays : 30;
    secret.deletedDate ??= new Date();
    secret.recoveryWindowInDays = days;
    return { ARN: secret.arn, Name: secret.name, DeletionDate: seconds(new Date(secret.deletedDate.getTime() + days * 86_400_000)) };
  },
  DescribeSecret(body, secrets) {
    const secret = find(secrets, body);
    const stages = Object.fromEntries(secret.versions.map((v, i) => [v.versionId, i === secret.versions.length - 1 ? ['AWSCURRENT'] : []]));
    return {
      ARN: secret.arn,
      Name: secret.name,
      ...(secret.kmsKeyId ? { KmsKeyId: secret.kmsKeyId } : {}),
      ...(secret.deletedDate ? { DeletedDate: seconds(secret.deletedDate) } : {}),
      VersionIdsToStages: stages,
    };
  },
};
