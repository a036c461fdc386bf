/**
 * The design agent as the turn engine runs it: a platform workflow (`@design`, no build has it) of one agent state
 * whose system prompt is the authoring skill, whose model is the config's `designAgent` and whose only tools are the
 * design tools, answered in the trusted process (never in a worker) through a ToolCatalog for the design queue's
 * turn runner. A chat's record (`design_chats`) names its agent environment and the member it acts for; what it has
 * read is kept per session in `design_reads`.
 *
 * Source: issue "The design agent" § Runtime, § Tools; docs/decisions.md D21.
 */
import type { AgentCaller } from '../agent/hosting.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { CatalogTool, ToolCallOptions, ToolCallResult, ToolCatalog } from '../ports/tool-catalog.ts';
import { designWorkflowSlug } from '../session/model.ts';
import { defaultWorkflowLimits, type WorkflowView } from '../session/workflow-view.ts';
import { DESIGN_SYSTEM_PROMPT } from './authoring-skill.ts';
import { type DesignReads, designToolDefinitions, type DesignToolDeps, runDesignTool } from './design-tools.ts';

/**
 * Collections of the design agent: its chats (`_id` = the design session's id, which is the chat's AG-UI thread id)
 * and what each chat has read (`_id` = `<sessionId>\u0000<path>`).
 */
export const designCollections = { chats: 'design_chats', reads: 'design_reads' } as const;
/** Version of the design collections' documents. */
export const designSchemaVersion = 1 as const;
/** Collection of the design chats. */
export const designChatsCollection = designCollections.chats;
/** Collection of what each design chat has read. */
export const designReadsCollection = designCollections.reads;
/** The tool collection name of the design tools in tool rules (`design/design_write_file`). */
export const DESIGN_COLLECTION = 'design';
/** The build id design sessions carry (no published build has it). */
export const DESIGN_BUILD = '@design';
/** The state a design chat runs in. */
export const DESIGN_STATE = 'design';
/** The terminal state a design chat ends in (when the member says they are done). */
export const DESIGN_END_STATE = 'done';

/** A design chat (collection `design_chats`). */
export interface DesignChatRecord {
  /** The design session's id (it starts with core/session/turn-jobs.ts DESIGN_ID_PREFIX) and the thread id. */
  _id: string;
  schemaVersion: typeof designSchemaVersion;
  /** The same id again, by the name the retention sweep removes a session's bound documents by. */
  sessionId: string;
  orgId: string;
  agentId: string;
  envName: string;
  /** The member it was opened by and acts for: the tools check their role on every call. */
  caller: AgentCaller;
  createdAt: Date;
}

interface DesignReadRecord {
  _id: string;
  schemaVersion: typeof designSchemaVersion;
  sessionId: string;
  path: string;
  /** SHA-256 hex of the text read, or null: read as absent. */
  digest: string | null;
}

/**
 * The design workflow the engine runs: one agent state (and the terminal state the chat may end in), the authoring
 * skill as its prompt, `model` (the config's
 * designAgent model), the design tools only. Spend caps of workflows never apply (no cap names `@design`).
 * @param promptCache - PLATFORM_PROMPT_CACHE: the system prompt is one constant, so the provider caches it
 */
export function designWorkflowView(model: string, promptCache: boolean): WorkflowView {
  return {
    slug: designWorkflowSlug,
    title: 'Design agent',
    agentPrompt: DESIGN_SYSTEM_PROMPT,
    disabled: false,
    model,
    promptCache,
    limits: defaultWorkflowLimits,
    tools: { allowAlways: [{ tool: DESIGN_COLLECTION }], forbidAlways: [] },
    states: {
      [DESIGN_STATE]: {
        slug: DESIGN_STATE,
        title: 'Design',
        type: 'agent',
        // A state with a way out is one the chat stays in (a reply without tool calls waits for the next message).
        transitions: [{ to: DESIGN_END_STATE, description: 'The member says they are done: end this design chat.' }],
        tools: { allow: [], forbid: [] },
        requires: [],
        budget: {},
        before: [],
        after: [],
        triggers: ['design'],
      },
      [DESIGN_END_STATE]: {
        slug: DESIGN_END_STATE,
        type: 'agent',
        transitions: [],
        tools: { allow: [], forbid: [] },
        requires: [],
        budget: {},
        before: [],
        after: [],
        triggers: [],
      },
    },
    skills: [],
    callable: {},
  };
}

/** The design tools as catalog tools (offered to the model under their own names). */
export const designCatalogTools: (CatalogTool & { modelName: string })[] = designToolDefinitions.map((tool) => ({
  collection: DESIGN_COLLECTION,
  name: tool.name,
  modelName: tool.name,
  description: tool.description,
  inputSchema: tool.inputSchema,
}));

const chatsOf = (docs: DocumentStore) => docs.collection<DesignChatRecord>(designChatsCollection);
const readsOf = (docs: DocumentStore) => docs.collection<DesignReadRecord>(designReadsCollection);

/** Creates the indexes of the design collections (a member's chats on an environment, newest first). */
export async function ensureDesignIndexes(docs: DocumentStore): Promise<void> {
  await chatsOf(docs).createIndex({ agentId: 1, envName: 1, 'caller.subject': 1, createdAt: -1 });
}

/** The reads ledger of design session `sessionId`, kept in `design_reads`. */
export function designReadsOf(docs: DocumentStore, sessionId: string): DesignReads {
  const id = (path: string) => `${sessionId}\u0000${path}`;
  return {
    digestOf: async (path) => {
      const read = await readsOf(docs).findOne({ _id: id(path) });
      return read === null ? undefined : read.digest;
    },
    note: async (path, digest) => {
      const fields = { schemaVersion: designSchemaVersion, sessionId, path, digest };
      await readsOf(docs).updateOne({ _id: id(path) }, { $set: fields }, { upsert: true });
    },
  };
}

/**
 * The catalog of the design queue's turn runner: the design tools, each call run for the chat of the calling turn's
 * session (`options.sessionId`, from the turn record, never from a worker) as the member who opened it.
 * @throws PlatformError `tool_not_found` (404) for another collection; `design_chat_not_found` (404) for a session
 *   that is no design chat
 */
export function designCatalog(deps: DesignToolDeps): ToolCatalog {
  const docs = deps.hosting.docs;
  return {
    tools: () => Promise.resolve(designCatalogTools),
    call: async (collection: string, name: string, input: unknown, options?: ToolCallOptions) => {
      if (collection !== DESIGN_COLLECTION) {
        throw new PlatformError('tool_not_found', `The design agent has no tool collection ${collection}.`, {
          status: 404,
        });
      }
      const chat = options?.sessionId ? await chatsOf(docs).findOne({ _id: options.sessionId }) : null;
      if (!chat) {
        throw new PlatformError('design_chat_not_found', 'This turn is not a design chat.', { status: 404 });
      }
      const context = {
        caller: chat.caller,
        agentId: chat.agentId,
        envName: chat.envName,
        reads: designReadsOf(docs, chat._id),
      };
      return await runDesignTool(deps, context, { name, input }) satisfies ToolCallResult;
    },
  };
}
