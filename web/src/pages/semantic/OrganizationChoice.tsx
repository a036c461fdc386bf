/**
 * The organization a new semantic project goes to (docs/decisions.md D17 § 1): nothing to choose for a member of one
 * organization (the API gives the project to it), a required select (GET /api/orgs) for a member of several.
 */
import { useState, type ReactNode } from 'react';
import { SelectField } from '../../ui/kit.tsx';
import { useOrganizations } from '../platform/agents/queries.ts';

/** The chosen organization (`orgId` of the create body; undefined: the member's only one) and its field. */
export function useOrganizationChoice(disabled = false): { orgId: string | undefined; field: ReactNode } {
  const orgs = useOrganizations();
  const [picked, setPicked] = useState('');
  const list = orgs.data ?? [];
  if (list.length <= 1) return { orgId: undefined, field: null };
  const options: [string, string][] = [
    ['', 'Choose an organization'], ...list.map((o): [string, string] => [o.id, o.name]),
  ];
  const field = (
    <SelectField label="Organization" value={picked} onChange={(e) => setPicked(e.target.value)} options={options}
      required disabled={disabled} />
  );
  return { orgId: picked || undefined, field };
}
