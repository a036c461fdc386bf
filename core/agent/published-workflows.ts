/**
 * Reads the workflows of a published (already validated) build for the runtime: each workflow.yaml parsed, its
 * WORKFLOW.md prose (HTML comments stripped), its hook scripts and trigger declarations, the AGENTS.md body, and
 * the skills (front matter description and body).
 *
 * Source: docs/agent-format.md; docs/decisions.md D7 § Agents and environments (a session runs on the published commit
 * it started on).
 */
import { parse } from 'yaml';
import type { Static } from '@sinclair/typebox';
import type { BuildContent } from './hosting-model.ts';
import type { TriggerDeclaration } from './trigger-model.ts';
import { checkStateTriggers } from './triggers.ts';
import type { WorkflowFile } from './workflow-checks.ts';
import { splitFrontMatter } from './yaml-source.ts';

/** One workflow of a build as the runtime reads it. */
export interface PublishedWorkflow {
  slug: string;
  definition: Static<typeof WorkflowFile>;
  prose?: string;
  /** Hook sources by their path as written in workflow.yaml (`hooks/<name>.js`). */
  hooks: Record<string, string>;
  triggers: TriggerDeclaration[];
}

/** The runtime's reading of a build. */
export interface PublishedAgent {
  agentPrompt: string;
  workflows: Record<string, PublishedWorkflow>;
  skills: Record<string, { description: string; body: string }>;
}

const stripComments = (text: string) => text.replace(/<!--[\s\S]*?-->/g, '').trim();

/** Reads a build's files for the runtime (the build passed the validator when it was published). */
export function readPublishedAgent(content: Pick<BuildContent, 'files'>): PublishedAgent {
  const files = new Map(content.files.map((f) => [f.path, f.text]));
  const agents = files.get('AGENTS.md') ?? '';
  const agentPrompt = (splitFrontMatter(agents)?.body ?? agents).trim();
  const workflows: Record<string, PublishedWorkflow> = {};
  const skills: PublishedAgent['skills'] = {};
  for (const [path, text] of files) {
    const workflow = /^workflows\/([^/]+)\/workflow\.yaml$/.exec(path);
    if (workflow) {
      const slug = workflow[1];
      const definition = parse(text) as Static<typeof WorkflowFile>;
      const prose = files.get(`workflows/${slug}/WORKFLOW.md`);
      const hooks = Object.fromEntries(
        [...files].filter(([p]) => p.startsWith(`workflows/${slug}/hooks/`)).map((
          [p, source],
        ) => [p.slice(`workflows/${slug}/`.length), source]),
      );
      const triggers = Object.entries(definition.states).flatMap(([state, value]) =>
        checkStateTriggers(slug, state, (value as { triggers?: Record<string, unknown> }).triggers ?? {}).declarations
      );
      workflows[slug] = {
        slug,
        definition,
        prose: prose === undefined ? undefined : stripComments(prose),
        hooks,
        triggers,
      };
    }
    const skill = /^skills\/([^/]+)\/SKILL\.md$/.exec(path);
    if (skill) {
      const split = splitFrontMatter(text);
      const front = split ? parse(split.yaml) as { description?: string } : {};
      skills[skill[1]] = { description: front.description ?? '', body: (split?.body ?? text).trim() };
    }
  }
  return { agentPrompt, workflows, skills };
}
