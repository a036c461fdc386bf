/**
 * The Domains tab of /members/<org> (organization:manage): the organization's e-mail domains. With
 * PLATFORM_DNS_VERIFICATION on, a domain counts once a DNS TXT record (`txtName` = `txtValue`) is found
 * (Verify asks again; the last check says what DNS had); off, a domain counts as verified when added.
 * Auto-onboarding (a person signing in with a verified address of the domain is offered membership in
 * the default group) is off until an Organization Owner turns it on (403 `owner_required` otherwise;
 * 409 `domain_unverified` for a domain not yet verified).
 *
 * Source: spec/platform-service.md § Authentication rules 4, 5; § Deployment settings
 * (PLATFORM_DNS_VERIFICATION); docs/decisions.md D10 (Members).
 */
import { useState, type FormEvent } from 'react';
import type { DomainView, GroupView, OrganizationDetail } from '../../../../../core/org/api-views.ts';
import { Button, CopyButton, ErrorMessage, Loading, RelativeTime, SelectField, TextField } from '../../../ui/kit.tsx';
import { ConfirmButton, personText } from './parts.tsx';
import { orgPath, useDomains, useGroups, useOrgChange } from './queries.ts';

/** The domains of `org`; `manage` is the caller's organization:manage (auto-onboarding reads `org.you.owner`). */
export function DomainsTab({ org, manage }: { org: OrganizationDetail; manage: boolean }) {
  const domains = useDomains(org.id, manage);
  const groups = useGroups(org.id);
  const [domain, setDomain] = useState('');
  const add = useOrgChange<DomainView, string>(org.id, (d) => ({ method: 'POST', path: orgPath(org.id, '/domains'), body: { domain: d } }));
  if (!manage) return <p className="notice">Only members who can manage the organization (permission <code>organization:manage</code>) see and change its domains.</p>;
  if (domains.isPending) return <Loading what="Loading domains" />;
  if (domains.isError) return <ErrorMessage error={domains.error} retry={() => void domains.refetch()} />;
  const dns = domains.data.dnsVerification;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate(domain.trim().toLowerCase(), { onSuccess: () => setDomain('') });
  };
  return (
    <section aria-labelledby="domains-heading">
      <h2 id="domains-heading">Domains</h2>
      <p className="muted">
        {dns ? 'A domain counts as verified once a DNS TXT record proves the organization controls it: add the domain, create the record it shows, then choose Verify.'
          : 'DNS verification is off on this deployment (PLATFORM_DNS_VERIFICATION): a domain counts as verified as soon as it is added.'}
        {' '}With auto-onboarding on, a person who signs in with a verified address at exactly that domain is offered to join the default group; nobody joins without choosing Join.
      </p>
      <form className="card add-domain" onSubmit={submit} aria-labelledby="add-domain-heading">
        <h3 id="add-domain-heading">Add a domain</h3>
        <div className="field-row">
          <TextField label="Domain" value={domain} onChange={(e) => setDomain(e.target.value)} required placeholder="example.com" autoComplete="off" />
          <Button kind="primary" type="submit" busy={add.isPending}>Add domain</Button>
        </div>
        {add.isError ? <ErrorMessage error={add.error} title="The domain was not added" /> : null}
      </form>
      {domains.data.domains.length === 0 ? <p className="empty">No domains yet.</p>
        : domains.data.domains.map((d) => <DomainCard key={d.domain} org={org} domain={d} dns={dns} groups={groups.data ?? []} />)}
    </section>
  );
}

/** One domain: status, TXT record and Verify (DNS verification on), auto-onboarding, default group, Remove. */
function DomainCard({ org, domain: d, dns, groups }: { org: OrganizationDetail; domain: DomainView; dns: boolean; groups: GroupView[] }) {
  const path = orgPath(org.id, `/domains/${encodeURIComponent(d.domain)}`);
  const verify = useOrgChange<DomainView, void>(org.id, () => ({ method: 'POST', path: `${path}/verify`, body: {} }));
  const update = useOrgChange<DomainView, { autoOnboarding?: boolean; defaultGroup?: string }>(org.id, (body) => ({ method: 'PUT', path, body }));
  const remove = useOrgChange<unknown, void>(org.id, () => ({ method: 'DELETE', path }));
  /** The switch's state while a change is on its way (null: the domain's own). */
  const [requested, setRequested] = useState<boolean | null>(null);
  const [requestedGroup, setRequestedGroup] = useState<string | null>(null);
  const verified = d.status === 'verified';
  const canTurnOn = org.you.owner && verified;
  const switchId = `auto-${d.domain}`;
  const groupOptions: [string, string][] = groups.length ? groups.map((g) => [g.id, g.name]) : [[d.defaultGroup.id, d.defaultGroup.name]];
  return (
    <article className="card domain-card" aria-labelledby={`domain-${d.domain}`}>
      <div className="section-head">
        <h3 id={`domain-${d.domain}`} className="break">{d.domain}</h3>
        <span className={verified ? 'badge badge-ok' : 'badge badge-warn'}>{verified ? 'Verified' : 'Pending verification'}</span>
      </div>
      <p className="muted small">Added by {personText(d.addedBy)} <RelativeTime at={d.addedAt} />{d.verifiedAt ? <> · verified <RelativeTime at={d.verifiedAt} /></> : null}</p>
      {dns && !verified ? (
        <div className="txt-record">
          <p>Create this DNS TXT record at your DNS provider, then choose Verify (DNS changes can take a while to show).</p>
          <dl className="facts">
            <dt>Name</dt><dd><code className="break">{d.txtName}</code> <CopyButton text={d.txtName} label="Copy name" /></dd>
            <dt>Value</dt><dd><code className="break">{d.txtValue}</code> <CopyButton text={d.txtValue} label="Copy value" /></dd>
          </dl>
        </div>
      ) : null}
      {dns ? (
        <p className="small">Last check: {d.lastCheck ? <><RelativeTime at={d.lastCheck.at} /> — {d.lastCheck.message}</> : <span className="muted">not checked yet</span>}</p>
      ) : null}
      {dns && !verified ? <div className="actions"><Button kind="primary" busy={verify.isPending} onClick={() => verify.mutate()} aria-label={`Verify ${d.domain}`}>Verify</Button></div> : null}
      {verify.isError ? <ErrorMessage error={verify.error} title="The domain could not be checked" /> : null}
      <div className="onboarding">
        <label className="check" htmlFor={switchId}>
          <input id={switchId} type="checkbox" role="switch" checked={requested ?? d.autoOnboarding} disabled={update.isPending || (!d.autoOnboarding && !canTurnOn)}
            onChange={(e) => { setRequested(e.target.checked); update.mutate({ autoOnboarding: e.target.checked }, { onSettled: () => setRequested(null) }); }} />
          <span>Auto-onboarding for {d.domain} <span className="muted small">({d.autoOnboarding ? 'on' : 'off'}{requested !== null ? ', saving' : ''})</span></span>
        </label>
        {!org.you.owner && !d.autoOnboarding ? <p className="hint">Only an Organization Owner can turn this on.</p>
          : !verified && !d.autoOnboarding ? <p className="hint">The domain must be verified before auto-onboarding can be turned on.</p> : null}
        <SelectField label="Default group (offered to onboarded people)" value={requestedGroup ?? d.defaultGroup.id} options={groupOptions} disabled={update.isPending}
          onChange={(e) => { setRequestedGroup(e.target.value); update.mutate({ defaultGroup: e.target.value }, { onSettled: () => setRequestedGroup(null) }); }} />
      </div>
      {update.isError ? <ErrorMessage error={update.error} title="The domain was not changed" /> : null}
      <div className="row-actions">
        <ConfirmButton label="Remove" ariaLabel={`Remove ${d.domain}`} question={`Remove ${d.domain}? Auto-onboarding for it stops.`} confirmLabel="Yes, remove" busy={remove.isPending} onConfirm={() => remove.mutate()} />
      </div>
      {remove.isError ? <ErrorMessage error={remove.error} title="The domain was not removed" /> : null}
    </article>
  );
}
