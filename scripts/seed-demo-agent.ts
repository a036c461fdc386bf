/**
 * Seeds the demo agent: `scripts/demo/agent` imported and published as agent `flights-analyst` in the
 * default organization (the dev user's), through `cairn agent import … --publish` as an operator would.
 *
 * Idempotent and retried like the demo projects: an agent that exists with a published build on `main` is
 * left as it is (a member's later edits stay); one whose published build is missing (an import cut off by a
 * restart, a refused publish) is imported and published again. A failed step is tried again once the API
 * answers, up to `attempts` times. Then, on every start, the incoming connections its triggers name are
 * registered when missing (scripts/seed-demo-connections.ts); a failure there is one line and leaves the agent
 * seeded, without endpoints in the banner.
 *
 * Source: docs/decisions.md D7 § Done when (scripts/start seeds a demo agent whose published workflow answers questions
 * about the flights project through the semantic collection); docs/decisions.md D8 § Done when (its endpoints and
 * triggers).
 */
import { join } from 'node:path';
import { seedDemoConnections, type DemoEndpoint } from './seed-demo-connections.ts';
import { api, cairn, SeedRefusal, withRetries, type SeedOptions } from './seed-demo.ts';

/** The demo agent's slug, and its workflow's. */
export const DEMO_AGENT = 'flights-analyst';
/** The demo workflow's slug. */
export const DEMO_WORKFLOW = 'flights-analyst';
/** The question the banner suggests. */
export const DEMO_QUESTION = 'Which state has the most delayed departures?';

/** The seeded agent: its id, its organization, the published build and its endpoints (none when their seeding failed). */
export interface SeededAgent {
  agentId: string;
  org: { id: string; name: string };
  buildId: string;
  endpoints?: DemoEndpoint[];
}

interface OrgView { id: string; name: string; kind: string }
interface AgentView { id: string; slug: string }
interface EnvView { published: { buildId: string } | null }

/**
 * Seeds the demo agent when missing or unpublished, then its connections when missing.
 * @throws Error naming the agent and the last failure (a connection failure is logged, not thrown)
 */
export async function seedDemoAgent(options: SeedOptions): Promise<SeededAgent> {
  const agent = await withRetries(options, `demo agent ${DEMO_AGENT}`, DEMO_AGENT, () => seedOnce(options));
  try {
    return { ...agent, endpoints: await withRetries(options, `demo connections of ${DEMO_AGENT}`, 'demo connections', () => seedDemoConnections(options)) };
  } catch (error) {
    options.log(`seeding the demo connections failed, the demo agent has no endpoints (run scripts/start again to retry): ${(error as Error).message}`);
    return agent;
  }
}

async function seedOnce(options: SeedOptions): Promise<SeededAgent> {
  const org = await defaultOrganization(options.url);
  const published = await publishedBuild(options.url, org.id);
  if (published) return { ...published, org };
  options.log(`seeding demo agent ${DEMO_AGENT} in organization ${org.name}`);
  await cairn(options, ['agent', 'import', join(options.root, 'scripts', 'demo', 'agent'), '--agent', DEMO_AGENT, '--org', org.id, '--publish']);
  const after = await publishedBuild(options.url, org.id);
  if (!after) throw new Error(`agent ${DEMO_AGENT} has no published build after cairn agent import --publish`);
  return { ...after, org };
}

/** The default organization (the dev user's, made at first boot). @throws Error when there is none */
async function defaultOrganization(url: string): Promise<OrgView> {
  const { body } = await api<{ organizations: OrgView[] }>(url, 'GET', '/api/orgs');
  const org = body?.organizations.find((o) => o.kind === 'default');
  if (!org) throw new SeedRefusal('no default organization: the demo agent is seeded under dev-user sign-in only');
  return org;
}

/** The agent's id and published build on `main`, or undefined when the agent or the build is missing. */
async function publishedBuild(url: string, org: string): Promise<{ agentId: string; buildId: string } | undefined> {
  const { body } = await api<{ agents: AgentView[] }>(url, 'GET', `/api/orgs/${encodeURIComponent(org)}/agents`);
  const agent = body?.agents.find((a) => a.slug === DEMO_AGENT);
  if (!agent) return undefined;
  const env = await api<EnvView>(url, 'GET', `/api/agents/${encodeURIComponent(agent.id)}/environments/main`);
  const buildId = env.body?.published?.buildId;
  return buildId === undefined ? undefined : { agentId: agent.id, buildId };
}
