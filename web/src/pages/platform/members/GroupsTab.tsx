/**
 * The Groups tab of /members/<org>: the built-in groups (Organization Owner, Administrator, Maintainer,
 * User) and custom ones with what they grant (permissions, roles on agents) and how many members they
 * have; members who manage the organization create, edit and delete custom groups and change what a
 * built-in group grants (the API keeps at least one Organization Owner: 409 `last_owner`; a built-in group
 * is never deleted: 409 `builtin_group`).
 *
 * Source: spec/platform-service.md § Authentication rule 8; docs/decisions.md D10 (Members).
 */
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { AgentListAnswer } from '../../../../../core/agent/api-views.ts';
import type { GroupView, OrganizationDetail } from '../../../../../core/org/api-views.ts';
import { api } from '../../../api/client.ts';
import { Button, ErrorMessage, Loading, SelectField, TextField } from '../../../ui/kit.tsx';
import { ConfirmButton } from './parts.tsx';
import { orgPath, useGroups, useOrgChange } from './queries.ts';
import { grantsSummary, permissionLabel, permissionOptions, roleOptions } from './roles.ts';

/** What the group form sends (POST …/groups, PUT …/groups/:group). */
interface GroupBody { name?: string; permissions: string[]; agentRoles: { agent: string; role: string }[] }

/** The groups of `org`; `manage` is the caller's organization:manage. */
export function GroupsTab({ org, manage }: { org: OrganizationDetail; manage: boolean }) {
  const groups = useGroups(org.id);
  const agents = useQuery({ queryKey: ['orgs', org.id, 'agents'], queryFn: () => api<AgentListAnswer>(orgPath(org.id, '/agents')).then((r) => r.agents) });
  const [editing, setEditing] = useState<string | 'new' | null>(null);
  const remove = useOrgChange<unknown, GroupView>(org.id, (g) => ({ method: 'DELETE', path: orgPath(org.id, `/groups/${encodeURIComponent(g.id)}`) }));
  if (groups.isPending) return <Loading what="Loading groups" />;
  if (groups.isError) return <ErrorMessage error={groups.error} retry={() => void groups.refetch()} />;
  const agentName = (id: string) => agents.data?.find((a) => a.id === id)?.name ?? id;
  const agentChoices: [string, string][] = [['*', 'Every agent'], ...(agents.data ?? []).map((a): [string, string] => [a.id, a.name])];
  return (
    <section aria-labelledby="groups-heading">
      <div className="section-head">
        <h2 id="groups-heading">Groups</h2>
        {manage && editing !== 'new' ? <Button kind="primary" onClick={() => setEditing('new')}>New group</Button> : null}
      </div>
      <p className="muted">A member's role on an agent is the highest any of their groups gives (Reader &lt; User &lt; Maintainer &lt; Administrator); their permissions are all their groups give.</p>
      {agents.isError ? <p className="muted small">Agent names could not be read ({(agents.error as Error).message}); agents are shown by id.</p> : null}
      {editing === 'new' ? <GroupForm org={org} agentChoices={agentChoices} onDone={() => setEditing(null)} /> : null}
      {remove.isError ? <ErrorMessage error={remove.error} title="The group was not deleted" /> : null}
      <div className="group-grid">
        {groups.data.map((g) => editing === g.id ? <GroupForm key={g.id} org={org} group={g} agentChoices={agentChoices} onDone={() => setEditing(null)} /> : (
          <article key={g.id} className="card group-card" aria-labelledby={`group-${g.id}`}>
            <h3 id={`group-${g.id}`}>{g.name} {g.builtin ? <span className="badge">built-in</span> : null}</h3>
            <dl className="facts">
              <dt>Members</dt><dd>{g.members.length}</dd>
              <dt>Permissions</dt>
              <dd>{g.permissions.length ? <div className="chips">{g.permissions.map((p) => <span key={p} className="badge chip" title={p}>{permissionLabel(p)}</span>)}</div> : <span className="muted">none</span>}</dd>
              <dt>Agents</dt><dd>{grantsSummary(g.agentRoles, agentName).map((line) => <div key={line}>{line}</div>)}</dd>
            </dl>
            {manage ? (
              <div className="row-actions">
                <Button onClick={() => setEditing(g.id)} aria-label={`Edit ${g.name}`}>Edit</Button>
                {g.builtin ? null : <ConfirmButton label="Delete" ariaLabel={`Delete ${g.name}`} question={`Delete the group ${g.name}? Its members keep their other groups.`} confirmLabel="Yes, delete" busy={remove.isPending && remove.variables?.id === g.id} onConfirm={() => remove.mutate(g)} />}
              </div>
            ) : null}
          </article>
        ))}
      </div>
    </section>
  );
}

/** Creates a group (no `group`) or edits one: name (fixed for a built-in group), permissions, roles on agents. */
function GroupForm({ org, group, agentChoices, onDone }: { org: OrganizationDetail; group?: GroupView; agentChoices: [string, string][]; onDone: () => void }) {
  const [name, setName] = useState(group?.name ?? '');
  const [permissions, setPermissions] = useState<string[]>(group?.permissions ?? ['workflows:use']);
  const [roles, setRoles] = useState<{ agent: string; role: string }[]>(group?.agentRoles ?? [{ agent: '*', role: 'user' }]);
  const save = useOrgChange<GroupView, GroupBody>(org.id, (body) => group
    ? { method: 'PUT', path: orgPath(org.id, `/groups/${encodeURIComponent(group.id)}`), body }
    : { method: 'POST', path: orgPath(org.id, '/groups'), body });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ ...(group?.builtin ? {} : { name: name.trim() }), permissions, agentRoles: roles }, { onSuccess: onDone });
  };
  const toggle = (p: string) => setPermissions((now) => now.includes(p) ? now.filter((x) => x !== p) : [...now, p]);
  const setRole = (i: number, change: Partial<{ agent: string; role: string }>) => setRoles((now) => now.map((r, j) => j === i ? { ...r, ...change } : r));
  const choices = (agent: string): [string, string][] => agentChoices.some(([id]) => id === agent) ? agentChoices : [...agentChoices, [agent, agent]];
  const title = group ? `Edit ${group.name}` : 'New group';
  /** The first agent choice with no role yet (each agent takes one role). */
  const unused = agentChoices.find(([id]) => !roles.some((r) => r.agent === id))?.[0];
  return (
    <form className="card group-form" onSubmit={submit} aria-label={title}>
      <h3>{title}</h3>
      {group?.builtin ? <p className="muted small">The name of a built-in group cannot change.</p>
        : <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />}
      <fieldset>
        <legend>Permissions</legend>
        {permissionOptions.map((p) => (
          <label key={p.id} className="check">
            <input type="checkbox" checked={permissions.includes(p.id)} onChange={() => toggle(p.id)} />
            <span>{p.label} <code className="small">{p.id}</code> <span className="muted small">— {p.hint}</span></span>
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Roles on agents</legend>
        {roles.length === 0 ? <p className="muted small">No role on any agent.</p> : null}
        {roles.map((r, i) => (
          <div key={i} className="field-row role-row">
            <SelectField label={`Agent ${i + 1}`} value={r.agent} options={choices(r.agent)} onChange={(e) => setRole(i, { agent: e.target.value })} />
            <SelectField label={`Role ${i + 1}`} value={r.role} options={[...roleOptions]} onChange={(e) => setRole(i, { role: e.target.value })} />
            <Button onClick={() => setRoles((now) => now.filter((_, j) => j !== i))} aria-label={`Remove agent role ${i + 1}`}>Remove</Button>
          </div>
        ))}
        {unused ? <Button onClick={() => setRoles((now) => [...now, { agent: unused, role: 'reader' }])}>Add agent role</Button>
          : <p className="hint">Every agent has a role here; each agent takes one role.</p>}
      </fieldset>
      {save.isError ? <ErrorMessage error={save.error} title="The group was not saved" /> : null}
      <div className="actions">
        <Button kind="primary" type="submit" busy={save.isPending}>{group ? 'Save group' : 'Create group'}</Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
    </form>
  );
}
