/**
 * The built-in template: the file set a new agent repository is seeded with when PLATFORM_TEMPLATE_REPO
 * is unset or empty. A minimal valid agent (it passes {@link validateAgentRepository}): AGENTS.md and one
 * chat workflow with a single state that answers and ends.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_TEMPLATE_REPO: built-in file
 * set when missing or empty); docs/agent-format.md.
 */
import type { AgentFile } from './documents.ts';

const agentsFile = `---
name: New agent
description: A new agent. Describe what it does here, then edit its workflows.
---
You are a helpful assistant of this organization. Answer clearly and say when you do not know.
`;

const workflowFile = `title: Chat
instructions: Answer the member's message.
states:
  answer:
    title: Answer
    instructions: Write the answer to the member's message.
    triggers:
      chat:
        examples:
          - What can you do?
`;

/** The built-in template's files (a fresh copy on every call). */
export function builtinTemplate(): AgentFile[] {
  return [
    { path: 'AGENTS.md', text: agentsFile },
    { path: 'workflows/chat/workflow.yaml', text: workflowFile },
  ];
}
