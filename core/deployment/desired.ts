/**
 * The desired deployments of an environment: every trigger of every workflow of its current published build
 * that deploys (chat with a connection, mcp and webhook with a connection, callback, schedule, polling,
 * completion), each with the problem that keeps it from serving, if any. Pure: the build's triggers, the
 * environment's connections, the collections the configured services offer and the mcp tools that cannot be
 * listed come in as plain data. Every problem names what is wrong and what to do.
 *
 * Source: spec/platform-service.md § Trigger deployment, § Trigger declarations (connection; two
 * triggers naming one AG-UI or webhook connection both fail), § Errors (mcp trigger declaring a file entry; two
 * triggers naming one connection); docs/decisions.md D8 § Triggers.
 */
import { CronPattern } from 'croner';
import { deployingTriggerTypes } from './model.ts';

/** A trigger of the published build (core/agent's TriggerDeclaration, as plain data). */
export interface DeploymentTrigger {
  id: string;
  type: string;
  workflow: string;
  state: string;
  fields: Record<string, unknown>;
}

/** What the checks take. */
export interface DesiredInput {
  /** The environment's name (messages name it). */
  environment: string;
  /** Slugs of the build's workflows. */
  workflows: string[];
  /** Every trigger of every workflow of the build. */
  triggers: DeploymentTrigger[];
  /** The environment's incoming connections. */
  connections: { identifier: string; protocol: string }[];
  /** Collection names some configured service offers (a service's `collection`, else its `id`). */
  offeredCollections: string[];
  /** mcp triggers whose tool cannot be listed (core/boot's mcpToolsOf `unlisted`), with its message. */
  mcpRefusals: { workflow: string; trigger: string; message: string }[];
}

/** One desired deployment: `problem` null when it can serve. */
export interface DesiredDeployment {
  workflow: string;
  trigger: string;
  type: string;
  connection: string | null;
  problem: string | null;
}

/** The connection protocol each endpoint trigger needs. Source: spec § Trigger declarations (connection). */
export const protocolOfTrigger: Readonly<Record<string, string>> = { chat: 'agui', mcp: 'mcp', webhook: 'webhook' };

const connectionOf = (
  t: DeploymentTrigger,
):
  | string
  | null => (typeof t.fields.connection === 'string' && t.fields.connection !== '' ? t.fields.connection : null);
const label = (t: DeploymentTrigger) => `The ${t.type} trigger "${t.id}" of workflow "${t.workflow}"`;

/** True when a trigger deploys: the kinds that do, and chat, mcp, webhook only with a connection (else no endpoint). */
export function deploys(trigger: DeploymentTrigger): boolean {
  if (!(deployingTriggerTypes as readonly string[]).includes(trigger.type)) return false;
  return !(trigger.type in protocolOfTrigger) || connectionOf(trigger) !== null;
}

/** The conflict message of each chat or webhook trigger sharing its connection with another, by `<workflow>/<trigger>`.
 */
function conflicts(triggers: DeploymentTrigger[]): Map<string, string> {
  const byConnection = new Map<string, DeploymentTrigger[]>();
  for (const t of triggers.filter((t) => (t.type === 'chat' || t.type === 'webhook') && connectionOf(t))) {
    const c = connectionOf(t)!;
    byConnection.set(c, [...(byConnection.get(c) ?? []), t]);
  }
  const messages = new Map<string, string>();
  for (const [c, named] of byConnection) {
    if (named.length < 2) continue;
    const who = named.map((t) => `workflow "${t.workflow}" (trigger "${t.id}")`).join(' and ');
    const message =
      `Connection "${c}" is named by ${named.length} triggers: ${who}. An AG-UI or webhook connection serves one ` +
      `trigger, so none of them is deployed; keep the connection on one trigger (register another connection for ` +
      `the others) and publish again.`;
    for (const t of named) messages.set(`${t.workflow}/${t.id}`, message);
  }
  return messages;
}

/** Why a cron expression or time zone cannot run, or undefined. */
export function scheduleProblem(cron: unknown, timezone: unknown): string | undefined {
  if (typeof cron !== 'string') {
    return 'declares no cron expression; give cron as five fields, e.g. "0 9 * * 1-5", or @daily, and publish again';
  }
  try {
    new CronPattern(cron, undefined, { mode: '5-part' });
  } catch (error) {
    return `has the cron expression ${JSON.stringify(cron)}, which cannot run (${
      (error instanceof Error ? error.message : String(error)).replace(/^CronPattern: /, '')
    }); write five fields "minute hour day month weekday", e.g. "0 9 * * 1-5", and publish again`;
  }
  if (timezone === undefined) return undefined;
  try {
    if (typeof timezone !== 'string') throw new Error('not text');
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return undefined;
  } catch {
    return `names the time zone ${
      JSON.stringify(timezone)
    }, which is not known; use an IANA name such as "Europe/Paris" or "UTC" and publish again`;
  }
}

/** The problem of one endpoint trigger's connection (absent or another protocol), or undefined. */
function connectionProblem(t: DeploymentTrigger, input: DesiredInput): string | undefined {
  const name = connectionOf(t)!;
  const needed = protocolOfTrigger[t.type];
  const connection = input.connections.find((c) => c.identifier === name);
  if (!connection) {
    return `${label(t)} names connection "${name}", which environment ` +
      `"${input.environment}" does not have; register it (cairn connection ` +
      `create --id ${name} --protocol ${needed} …) or name an existing ` +
      `connection of protocol ${needed} and publish again.`;
  }
  if (connection.protocol !== needed) {
    return `${label(t)} names connection "${name}", whose protocol is ` +
      `${connection.protocol}; a ${t.type} trigger needs a connection of ` +
      `protocol ${needed}. Name one (or register one) and publish again.`;
  }
  return undefined;
}

/** The problem of one deploying trigger, or null. */
function problemOf(t: DeploymentTrigger, input: DesiredInput, conflicted: Map<string, string>): string | null {
  if (t.type in protocolOfTrigger) {
    const problem = connectionProblem(t, input) ?? conflicted.get(`${t.workflow}/${t.id}`);
    if (problem) return problem;
    if (t.type === 'mcp') {
      return input.mcpRefusals.find((r) => r.workflow === t.workflow && r.trigger === t.id)?.message ?? null;
    }
    return null;
  }
  if (t.type === 'schedule') {
    const why = scheduleProblem(t.fields.cron, t.fields.timezone);
    return why ? `${label(t)} ${why}.` : null;
  }
  if (t.type === 'completion') {
    const named = String(t.fields.workflow ?? '');
    if (input.workflows.includes(named)) return null;
    return `${label(t)} names workflow "${named}", which the published build lacks; name one of ${
      input.workflows.map((w) => `"${w}"`).join(', ')
    } and publish again.`;
  }
  const collection = String(t.fields.collection ?? '');
  if (input.offeredCollections.includes(collection)) return null;
  const offered = input.offeredCollections.length
    ? `the configured services offer ${input.offeredCollections.map((c) => `"${c}"`).join(', ')}`
    : 'no service is configured';
  return `${label(t)} names collection "${collection}", which no ` +
    `configured service offers (${offered}); add a service offering it to ` +
    `the config's services and restart, or name an offered collection and ` + `publish again.`;
}

/**
 * The desired deployments of a build, in the build's trigger order.
 * @returns one entry per deploying trigger, with its connection and its problem (null when it can serve)
 */
export function desiredDeployments(input: DesiredInput): DesiredDeployment[] {
  const deploying = input.triggers.filter(deploys);
  const conflicted = conflicts(deploying);
  return deploying.map((t) => ({
    workflow: t.workflow,
    trigger: t.id,
    type: t.type,
    connection: connectionOf(t),
    problem: problemOf(t, input, conflicted),
  }));
}
