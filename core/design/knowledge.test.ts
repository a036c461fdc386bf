/**
 * The design agent's knowledge: the generated module holds docs/agent-format.md and the worked examples as they are
 * now (run `node scripts/lib/design-knowledge.mjs` after changing them), every worked example validates with the
 * validator publish uses, and the system prompt carries the rules (validate after every change, never publish).
 * Source: issue "The design agent" § Knowledge.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateAgentRepository } from '../agent/validate.ts';
import { designKnowledgeModule } from '../../scripts/lib/design-knowledge.mjs';
import { AUTHORING_RULES, DESIGN_SYSTEM_PROMPT } from './authoring-skill.ts';
import { AGENT_FORMAT_REFERENCE, WORKED_EXAMPLES } from './knowledge.generated.ts';

describe("the design agent's knowledge", () => {
  it('is generated from the format reference and the examples as they are now', () => {
    const current = readFileSync(new URL('./knowledge.generated.ts', import.meta.url), 'utf8');
    expect(current === designKnowledgeModule(), 'run: node scripts/lib/design-knowledge.mjs').toBe(true);
    expect(AGENT_FORMAT_REFERENCE).toBe(readFileSync(new URL('../../docs/agent-format.md', import.meta.url), 'utf8'));
  });

  it('holds worked examples that validate, covering the patterns the issue names', () => {
    expect(WORKED_EXAMPLES.length).toBeGreaterThanOrEqual(2);
    for (const example of WORKED_EXAMPLES) {
      const result = validateAgentRepository(example.files);
      expect(result.problems, example.title).toEqual([]);
    }
    const all = WORKED_EXAMPLES.flatMap((e) => e.files.map((f) => f.text)).join('\n');
    for (
      const pattern of [
        'type: human',
        'session: ',
        'script: hooks/',
        'platform_workflow_',
        'type: schedule',
        'requires:',
        'returns:',
        'mocks:',
        'grade:',
        'deliver:',
      ]
    ) {
      expect(all, pattern).toContain(pattern);
    }
  });

  it('gives the system prompt the rules, the reference and the examples', () => {
    expect(AUTHORING_RULES.join('\n')).toMatch(/Validate after every change/);
    expect(AUTHORING_RULES.join('\n')).toMatch(/never publish/);
    expect(DESIGN_SYSTEM_PROMPT).toContain('# The agent repository format');
    expect(DESIGN_SYSTEM_PROMPT).toContain('--- workflows/desk/hooks/check-answer.js');
  });
});
