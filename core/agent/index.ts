/**
 * The agent repository format: schemas and the strict validator (`validateAgentRepository`), used at
 * publish and by `cairn agent validate <dir>`. The reference for authors is docs/agent-format.md.
 *
 * Source: docs/agent-format.md; spec/platform-service.md § Trigger declarations, § Limits, § Errors.
 */
export * from './model.ts';
export * from './trigger-model.ts';
export * from './documents-model.ts';
export { checkWorkflow, WorkflowFile, type WorkflowSummary } from './workflow-checks.ts';
export { cronProblem, isTimeZone } from './triggers.ts';
export type { AgentFile } from './documents.ts';
export { type AgentProblem, splitFrontMatter } from './yaml-source.ts';
export { type AgentValidation, validateAgentRepository } from './validate.ts';
