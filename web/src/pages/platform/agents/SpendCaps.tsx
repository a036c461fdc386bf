/**
 * One published workflow's spend caps: for each period (day, week, month) the cap in USD (empty: no cap)
 * and what was spent so far in the current period, each editable by a Maintainer.
 *
 * Source: spec/platform-service.md (What the service does: spend caps; § Errors spend_cap_reached);
 * docs/decisions.md D10.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { SpendCapBody, SpendCapView } from '../../../../../core/session/spend-views.ts';
import { api } from '../../../api/client.ts';
import { Button, ErrorMessage, Loading } from '../../../ui/kit.tsx';
import { agentKeys, environmentPath, useSpendCaps } from './queries.ts';

const periods = ['day', 'week', 'month'] as const;
const periodLabel = { day: 'Per day (UTC)', week: 'Per week (from Monday, UTC)', month: 'Per month (UTC)' } as const;

/** The caps card of `workflow` in `env` of `agent`. */
export function SpendCaps({ agent, env, workflow }: { agent: string; env: string; workflow: string }) {
  const caps = useSpendCaps(agent, env, workflow);
  return (
    <section className="card spend" aria-label={`Spend caps of ${workflow}`}>
      <h3><code>{workflow}</code></h3>
      {caps.isPending ? <Loading what="Loading spend caps" /> : caps.isError ? <ErrorMessage error={caps.error} retry={() => void caps.refetch()} /> : (
        <div className="table-wrap">
          <table className="stack-table">
            <thead><tr><th scope="col">Period</th><th scope="col">Spent so far</th><th scope="col">Cap (USD)</th></tr></thead>
            <tbody>{periods.map((p) => <CapRow key={p} agent={agent} env={env} workflow={workflow} period={p} cap={caps.data.find((c) => c.period === p)} />)}</tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function CapRow({ agent, env, workflow, period, cap }: { agent: string; env: string; workflow: string; period: SpendCapView['period']; cap: SpendCapView | undefined }) {
  const client = useQueryClient();
  const saved = cap?.limitUsd == null ? '' : String(cap.limitUsd);
  const [value, setValue] = useState(saved);
  const save = useMutation({
    mutationFn: (body: SpendCapBody) => api(environmentPath(agent, env, `/workflows/${encodeURIComponent(workflow)}/spend-caps/${period}`), { method: 'PUT', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: agentKeys.spendCaps(agent, env, workflow) }),
  });
  const number = value.trim() === '' ? null : Number(value);
  const invalid = number !== null && (!Number.isFinite(number) || number < 0);
  const inputId = `cap-${workflow}-${period}`;
  return (
    <tr>
      <th scope="row" data-label="Period">{periodLabel[period]}</th>
      <td data-label="Spent so far">{cap ? `$${cap.spentUsd.toFixed(4)}` : <span className="muted">not known</span>}</td>
      <td data-label="Cap (USD)"><div>
        <div className="cap-edit">
          <label htmlFor={inputId} className="visually-hidden">Cap of {workflow} {period} in USD</label>
          <input id={inputId} inputMode="decimal" value={value} placeholder="no cap" onChange={(e) => setValue(e.target.value)} aria-invalid={invalid} />
          <Button onClick={() => save.mutate({ limitUsd: number })} disabled={invalid || value.trim() === saved || save.isPending}>Save cap</Button>
        </div>
        {invalid ? <p className="small error-text">Enter dollars (0 or more), or leave empty for no cap.</p> : null}
        {save.isError ? <ErrorMessage error={save.error} title="The cap was not saved" /> : null}
      </div></td>
    </tr>
  );
}
