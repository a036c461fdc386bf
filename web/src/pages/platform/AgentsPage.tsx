/** Agents and environments: placeholder until the page is built (issue 10). */
export function AgentsPage({ agent, env, tab }: { agent?: string; env?: string; tab?: string }) {
  return <p>The agents page ({agent ?? 'all'}{env ? ` / ${env}` : ''}{tab ? ` / ${tab}` : ''}) is not built yet.</p>;
}
