/**
 * Hosted agents (public edge of core/agent's hosting use cases): agents as git repositories in the object
 * store, environments as named branches with a draft and a published plane.
 *
 * Source: spec/platform-service.md (What the service does); docs/decisions.md D7 § Agents and environments.
 */
export * from './hosting-model.ts';
export { builtinTemplate } from './template.ts';
export { agentLockTtlMs, agentLockWaitMs, withAgentLock } from './agent-lock.ts';
export { loadAgent } from './agent-access.ts';
export { createAgent, describeAgent, getAgent, listAgents } from './agents.ts';
export {
  type DraftChange,
  type EnvironmentView,
  environmentView,
  loadEnvironment,
  maxFilesPerSave,
  readEnvironment,
  saveDraft,
} from './drafts.ts';
export { type EnvironmentSettings, setEnvironmentSettings } from './environment-settings.ts';
export {
  changeDraftFile,
  type DraftFileChange,
  DraftFileChangedError,
  type DraftFileRef,
  type DraftFileText,
  listDraftFiles,
  readDraft,
  readDraftFile,
} from './draft-files.ts';
export { type DraftChangedFile, type DraftChanges, draftChanges } from './draft-changes.ts';
export { type PublishedAgent, type PublishedWorkflow, readPublishedAgent } from './published-workflows.ts';
export {
  AgentInvalidError,
  draftBuild,
  formatAgentProblem,
  readBuild,
  readBuildById,
  requirePublished,
} from './builds.ts';
export { discardDraft, restoreEnvironment } from './draft-restores.ts';
export { promoteEnvironment, publishEnvironment } from './publishing.ts';
export * from './operations-model.ts';
export {
  failInterruptedOperations,
  type OperationRequest,
  readOperation,
  requestOperation,
  runOperation,
} from './operations.ts';
