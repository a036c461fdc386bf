/**
 * The Design agent tab of /members/<org> (organization:manage): what the design agent cost the organization this
 * UTC day, week (from Monday) and month, and this month per agent environment. It is counted apart from the
 * workflows' spend and never against their caps.
 *
 * Source: issue "The design agent" § Runtime (a separate designAgent spend view); docs/decisions.md D21 § 8.
 */
import { useQuery } from '@tanstack/react-query';
import type { OrganizationDetail } from '../../../../../core/org/api-views.ts';
import type { DesignSpendView } from '../../../../../core/design/design-views.ts';
import { api } from '../../../api/client.ts';
import { ErrorMessage, Loading } from '../../../ui/kit.tsx';
import { orgPath } from './queries.ts';

const periodNames: Record<string, string> = { day: 'Today (UTC)', week: 'This week', month: 'This month' };
const usd = (value: number) => `$${value.toFixed(4)}`;

/** The design agent's spend of `org`; `manage` is the caller's organization:manage. */
export function DesignSpendTab({ org, manage }: { org: OrganizationDetail; manage: boolean }) {
  const spend = useQuery({
    queryKey: ['orgs', org.id, 'design-spend'],
    enabled: manage,
    queryFn: () => api<DesignSpendView>(orgPath(org.id, '/design-spend')),
  });
  if (!manage) {
    return (
      <p className="notice">
        Only members who can manage the organization (permission <code>organization:manage</code>) see what the
        design agent cost.
      </p>
    );
  }
  if (spend.isPending) return <Loading what="Loading the design agent's spend" />;
  if (spend.isError) return <ErrorMessage error={spend.error} retry={() => void spend.refetch()} />;
  return (
    <section aria-labelledby="design-spend-heading">
      <h2 id="design-spend-heading">Design agent spend</h2>
      <p className="muted">
        What the design agent's model calls cost, at the design agent's prices. It is counted apart from the
        workflows' spend and never against their caps.
      </p>
      <dl className="card design-spend-periods">
        {spend.data.periods.map((p) => (
          <div key={p.period}><dt>{periodNames[p.period] ?? p.period}</dt><dd>{usd(p.costUsd)}</dd></div>
        ))}
      </dl>
      <h3>This month by agent environment</h3>
      {spend.data.agents.length === 0 ? <p className="empty">No design chat has cost anything this month.</p> : (
        <table className="stack-table">
          <thead><tr><th>Agent</th><th>Environment</th><th>Cost</th></tr></thead>
          <tbody>
            {spend.data.agents.map((a) => (
              <tr key={`${a.agentId}:${a.environment}`}>
                <td data-label="Agent">{a.name ?? a.slug ?? a.agentId}</td>
                <td data-label="Environment">{a.environment}</td>
                <td data-label="Cost">{usd(a.costUsd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
