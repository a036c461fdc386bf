/**
 * Names cairn's spans and metrics use: the instrumentation scope, and the attributes of the OpenTelemetry GenAI
 * semantic conventions (development status) as
 * published in `@opentelemetry/semantic-conventions` 1.45.0 (its incubating entry, `gen_ai.*`); cairn's own
 * attributes are under `cairn.`. Source: docs/decisions.md D25 (observability).
 */
import { trace, type Tracer } from '@opentelemetry/api';

/** The instrumentation scope of every span and instrument cairn makes. */
export const INSTRUMENTATION_SCOPE = 'cairn';
/** The GenAI semantic conventions version whose names these are. */
export const GENAI_SEMCONV_VERSION = '1.45.0';

/** cairn's tracer (a no-op until a bin registers the SDK). */
export function cairnTracer(): Tracer {
  return trace.getTracer(INSTRUMENTATION_SCOPE);
}

/** Attribute names of the GenAI conventions, and cairn's own. */
export const attr = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationTokens: 'gen_ai.usage.cache_creation.input_tokens',
  conversationId: 'gen_ai.conversation.id',
  agentId: 'gen_ai.agent.id',
  agentName: 'gen_ai.agent.name',
  workflowName: 'gen_ai.workflow.name',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
  errorType: 'error.type',
  orgId: 'cairn.org.id',
  environment: 'cairn.environment',
  workflow: 'cairn.workflow',
  state: 'cairn.state',
  turnId: 'cairn.turn.id',
  turnKind: 'cairn.turn.kind',
  costUsd: 'cairn.cost.usd',
} as const;
