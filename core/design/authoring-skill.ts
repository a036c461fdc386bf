/**
 * The design agent's built-in authoring skill: what it knows of the agent format (docs/agent-format.md, whole), worked
 * examples (whole agent repositories that validate: ./knowledge.generated.ts) and the rules it works by (change the
 * draft only through its tools, read before writing, validate after every change, never publish). The system prompt
 * built from it is the same for every design chat, so the provider can cache it (`PLATFORM_PROMPT_CACHE`).
 *
 * Source: issue "The design agent" § Knowledge.
 */
import { AGENT_FORMAT_REFERENCE, WORKED_EXAMPLES } from './knowledge.generated.ts';
import { LAYOUT_TEXT } from './layout.ts';

/** The skill's name and description (as skills are named in the agent format). */
export const AUTHORING_SKILL = {
  name: 'cairn-agent-authoring',
  description: 'Write and change cairn agents: the agent repository format, worked examples, and how to check a draft.',
} as const;

/** The rules the design agent works by. */
export const AUTHORING_RULES = [
  "You build and change one cairn agent environment's draft by talking with a member who maintains the agent.",
  'Change the draft only with your tools. Read a file (design_read_file) before you change or delete it; write ' +
  'whole files (design_write_file).',
  `Write only files of the agent repository's layout: ${LAYOUT_TEXT}.`,
  'Validate after every change (design_validate) and fix every problem it names before you say you are done.',
  'When the draft has evaluation cases, run them (design_run_evaluations) after a change that could affect them.',
  'Use only tool collections and skills this deployment offers (design_list_tools) in tool and skill rules.',
  'You never publish, restore or promote: a person does that after reading the diff. Say what you changed and why.',
  'If a write is refused because the file changed, someone else saved it: redo your change on the text you are ' +
  'given.',
];

/** The worked examples as one text: each example's title, then its files. */
function examplesText(): string {
  return WORKED_EXAMPLES.map((example, i) => {
    const files = example.files.map((f) => `--- ${f.path}\n${f.text.trimEnd()}`).join('\n\n');
    return `## Example ${i + 1}: ${example.title}\n\n${files}`;
  }).join('\n\n');
}

/** The design agent's system prompt: the rules, the format reference and the worked examples (built once). */
export const DESIGN_SYSTEM_PROMPT: string = [
  `# How you work\n\n${AUTHORING_RULES.map((r) => `- ${r}`).join('\n')}`,
  `# Skill ${AUTHORING_SKILL.name}: ${AUTHORING_SKILL.description}`,
  AGENT_FORMAT_REFERENCE.trimEnd(),
  `# Worked examples (each validates)\n\n${examplesText()}`,
].join('\n\n');
