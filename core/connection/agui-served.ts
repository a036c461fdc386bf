/**
 * Which chat trigger an AG-UI connection serves: the one chat trigger of the environment's current published build
 * that names it (two or more are a deployment error), with its session key and what a message does while a turn
 * of the chat runs (`multitask`).
 *
 * Source: spec/platform-service.md § AG-UI request; docs/decisions.md D8 § Endpoints (AG-UI), D27 § 1.
 */
import { multitaskOf, type MultitaskStrategy } from '../agent/multitask.ts';
import type { TriggerDeclaration } from '../agent/trigger-model.ts';
import { PlatformError } from '../ports/platform-error.ts';
import { type PublishedEnvironment, publishedEnvironment } from '../session/published-environment.ts';
import type { ConnectionRecord } from './index.ts';

/** The chat trigger a connection serves, on the environment's published build. */
export interface ServedChat {
  orgId: string;
  buildId: string;
  commitId: string;
  workflow: string;
  trigger: { id: string; state: string };
  disabled: boolean;
  /** The chat trigger's session key expression, if it declares one (docs/agent-format.md § Triggers: chat `session`).
   */
  sessionKey?: string;
  /** What a message does while a turn of the chat runs (the trigger's `multitask`; docs/decisions.md D27 § 1). */
  multitask: MultitaskStrategy;
}

/**
 * The chat and webhook triggers of a published build that name connection `identifier`, with their workflow:
 * one serves it; two or more are a deployment error (an AG-UI or webhook connection serves one trigger).
 */
export function triggersNaming(
  agent: PublishedEnvironment['agent'],
  identifier: string,
): { workflow: string; trigger: TriggerDeclaration; disabled: boolean }[] {
  return Object.values(agent.workflows).flatMap((w) =>
    w.triggers
      .filter((t) => (t.type === 'chat' || t.type === 'webhook') && t.fields.connection === identifier)
      .map((t) => ({ workflow: w.slug, trigger: t, disabled: w.definition.disabled === true }))
  );
}

/**
 * The chat trigger connection `connection` serves: the one chat trigger of the environment's published build that
 * names it. @returns undefined when none does (nothing is served: 404)
 * @throws PlatformError `deployment_error` (503) when two or more triggers name it, naming the connection and the
 * workflows
 */
export async function servedChat(
  deps: Parameters<typeof publishedEnvironment>[0],
  connection: ConnectionRecord,
): Promise<ServedChat | undefined> {
  const published = await publishedEnvironment(deps, connection.agentId, connection.environment);
  if (!published) return undefined;
  const { env, agent } = published;
  const naming = triggersNaming(agent, connection.identifier);
  if (naming.length > 1) {
    const named = naming.map((n) => `${n.workflow} (trigger ${n.trigger.id})`).join(', ');
    throw new PlatformError(
      'deployment_error',
      `Connection "${connection.identifier}" is named by more than one trigger: ${named}. An AG-UI connection ` +
        `serves one chat trigger; remove all but one and publish again.`,
      { status: 503 },
    );
  }
  const chat = naming.find((n) => n.trigger.type === 'chat');
  if (!chat) return undefined;
  const sessionKey = typeof chat.trigger.fields.session === 'string' ? chat.trigger.fields.session : undefined;
  return {
    orgId: env.orgId,
    buildId: env.published.buildId,
    commitId: env.published.commitId,
    workflow: chat.workflow,
    trigger: { id: chat.trigger.id, state: chat.trigger.state },
    disabled: chat.disabled,
    ...(sessionKey ? { sessionKey } : {}),
    multitask: multitaskOf(chat.trigger.fields),
  };
}
