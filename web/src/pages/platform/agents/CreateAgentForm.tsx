/**
 * Creating an agent from the Agents list (`POST /api/orgs/:org/agents` {slug, name?}; agents:create): the
 * organization (when the member is in more than one), the slug, an optional name, and "Describe what it should do".
 * The new agent's `main` environment holds the template's draft. With a description the page moves to that
 * environment's Design tab, which sends the description as the first message of a new design chat ("start from
 * nothing"); without one, to its Overview.
 *
 * Source: spec/platform-service.md (What the service does); issue "The design agent" § Front doors; docs/decisions.md
 * D10 (Agents and environments), D21.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import type { AgentView } from '../../../../../core/agent/api-views.ts';
import type { OrganizationView } from '../../../../../core/org/api-views.ts';
import { api } from '../../../api/client.ts';
import { Button, ErrorMessage, SelectField, TextArea, TextField } from '../../../ui/kit.tsx';
import { handFirstMessage } from './design-queries.ts';
import { agentKeys, agentRefOf } from './queries.ts';

/** The environment every new agent starts with. */
const firstEnvironment = 'main';

const slugPattern = '[a-z0-9]+(-[a-z0-9]+)*';

/**
 * The creation form for one of `orgs`; `others` are the agents already listed (to name the new one in the address by
 * slug when no other shares it); `onCancel` closes it.
 */
export function CreateAgentForm({ orgs, others, onCancel }: {
  orgs: OrganizationView[]; others: AgentView[]; onCancel(): void;
}) {
  const client = useQueryClient();
  const [, navigate] = useLocation();
  const [org, setOrg] = useState(orgs[0]?.id ?? '');
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useMutation({
    mutationFn: () => api<AgentView>(`/api/orgs/${encodeURIComponent(org)}/agents`, {
      method: 'POST', body: { slug, ...(name.trim() ? { name: name.trim() } : {}) },
    }),
    onSuccess: async (agent) => {
      client.setQueryData<AgentView[]>(agentKeys.agents(agent.orgId), (list) => [...(list ?? []), agent]);
      void client.invalidateQueries({ queryKey: agentKeys.agents(agent.orgId) });
      const ref = encodeURIComponent(agentRefOf(agent, [...others, agent]));
      const what = description.trim();
      if (what) handFirstMessage(agent.id, firstEnvironment, what);
      navigate(`/agents/${ref}/environments/${firstEnvironment}/${what ? 'design' : 'overview'}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!org || !slug || create.isPending) return;
    create.mutate();
  };
  return (
    <form className="card create-agent" onSubmit={submit} aria-labelledby="create-agent-heading">
      <h2 id="create-agent-heading">New agent</h2>
      {orgs.length > 1 ? (
        <SelectField label="Organization" options={orgs.map((o) => [o.id, o.name])} value={org}
          onChange={(e) => setOrg(e.target.value)} />
      ) : null}
      <div className="field-row">
        <TextField label="Slug" required value={slug} maxLength={60} pattern={slugPattern} autoComplete="off"
          hint="Lowercase letters and digits joined by hyphens, e.g. support-desk. It names the agent in addresses."
          onChange={(e) => setSlug(e.target.value.trim().toLowerCase())} />
        <TextField label="Name (optional)" value={name} maxLength={100} onChange={(e) => setName(e.target.value)}
          hint="Shown in lists; the template’s name when empty." />
      </div>
      <TextArea label="Describe what it should do (optional)" rows={4} value={description} maxLength={10000}
        onChange={(e) => setDescription(e.target.value)} className="create-agent-description"
        hint="Sent to the design agent as the first message of a chat on the new agent’s draft (its Design tab)." />
      {create.isError ? <ErrorMessage error={create.error} title="The agent was not created" /> : null}
      <div className="row-actions">
        <Button kind="primary" type="submit" busy={create.isPending} disabled={!org || !slug}>Create agent</Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  );
}
