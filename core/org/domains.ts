/**
 * Organization e-mail domains: added by a manager, verified by a DNS TXT record named
 * `_cairn-verification.<domain>` holding the domain's value (or at once when PLATFORM_DNS_VERIFICATION is
 * off), verified for one organization at most, and carrying auto-onboarding (off until an Organization
 * Owner turns it on) with the group an onboarded person is offered.
 *
 * Source: spec/platform-service.md § Authentication rule 5, § Deployment settings
 * (PLATFORM_DNS_VERIFICATION); docs/decisions.md D10 § Members.
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import type { TxtLookup } from '../ports/txt-lookup.ts';
import { stampOf } from './invitations.ts';
import { getGroup } from './members.ts';
import {
  type DomainRecord,
  type OrgCaller,
  orgCollections,
  type OrgDeps,
  orgSchemaVersion,
  type VerifiedDomainRecord,
} from './model.ts';
import { insertOnce } from './organizations.ts';
import { builtinGroupId } from './rules.ts';
import type { OrgAccess } from './access.ts';

/** The TXT record name prefix: the record is `_cairn-verification.<domain>`. */
export const verificationRecordPrefix = '_cairn-verification.';

/** The name of the TXT record that verifies `domain`. */
export const txtNameOf = (domain: string) => `${verificationRecordPrefix}${domain}`;

/** What domain use cases need beyond the stores: how verification works on this deployment. */
export interface DomainDeps extends OrgDeps {
  /** PLATFORM_DNS_VERIFICATION: on, a TXT record proves a domain; off, adding it verifies it. */
  dnsVerification: boolean;
  txt: TxtLookup;
}

const domains = (deps: Pick<OrgDeps, 'docs'>) => deps.docs.collection<DomainRecord>(orgCollections.domains);
const claims = (deps: Pick<OrgDeps, 'docs'>) =>
  deps.docs.collection<VerifiedDomainRecord>(orgCollections.verifiedDomains);

/**
 * The lower-case form of a domain name, after checking it: letters, digits and hyphens in dot-separated
 * labels of 1–63, at least two labels, at most 253 characters; a trailing dot is dropped.
 * @throws PlatformError `invalid_argument` (400)
 */
export function normalDomain(domain: string): string {
  const name = domain.trim().toLowerCase().replace(/\.$/, '');
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
  const labels = name.split('.');
  if (
    name.length > 253 || labels.length < 2 || !labels.every((l) => label.test(l)) || /^\d+$/.test(labels.at(-1) ?? '')
  ) {
    throw new PlatformError(
      'invalid_argument',
      `"${domain.slice(0, 80)}" is not a domain name; give the part of the e-mail addresses after @, e.g. example.com.`,
      { status: 400 },
    );
  }
  return name;
}

/** The domains of `orgId`, by name. */
export async function listDomains(deps: Pick<OrgDeps, 'docs'>, orgId: string): Promise<DomainRecord[]> {
  return domains(deps).find({ orgId }, { sort: { domain: 1 } });
}

/** The domain `domain` of `orgId`. @throws PlatformError `not_found` (404) */
export async function getDomain(deps: Pick<OrgDeps, 'docs'>, orgId: string, domain: string): Promise<DomainRecord> {
  const found = await domains(deps).findOne({ _id: `${orgId}:${domain.toLowerCase()}` });
  if (!found) {
    throw new PlatformError(
      'not_found',
      `No domain "${domain.slice(0, 80)}" in this organization; GET /api/orgs/<org>/domains lists them.`,
      { status: 404 },
    );
  }
  return found;
}

/**
 * Adds `domain` to `orgId` (pending, with a fresh TXT value). With DNS verification off it is verified at
 * once when no other organization holds it.
 * @throws PlatformError `invalid_argument` (400); `conflict` (409) when the organization has it already
 */
export async function addDomain(deps: DomainDeps, orgId: string, by: OrgCaller, domain: string): Promise<DomainRecord> {
  const name = normalDomain(domain);
  const random = Array.from(deps.ids.randomBytes(16), (b) => b.toString(16).padStart(2, '0')).join('');
  const record: DomainRecord = {
    _id: `${orgId}:${name}`,
    schemaVersion: orgSchemaVersion,
    orgId,
    domain: name,
    txtValue: `cairn-verification=${random}`,
    autoOnboarding: false,
    defaultGroupId: builtinGroupId(orgId, 'user'),
    addedBy: stampOf(by),
    addedAt: deps.clock.now(),
  };
  if (!(await insertOnce(deps.docs, orgCollections.domains, record))) {
    throw new PlatformError('conflict', `${name} is already among this organization's domains.`, { status: 409 });
  }
  return deps.dnsVerification
    ? record
    : markVerified(deps, record, 'Verified when added (PLATFORM_DNS_VERIFICATION is off).');
}

/** Claims the domain for its organization and records the result on the domain. */
async function markVerified(deps: DomainDeps, record: DomainRecord, message: string): Promise<DomainRecord> {
  const at = deps.clock.now();
  const claim: VerifiedDomainRecord = {
    _id: record.domain,
    schemaVersion: orgSchemaVersion,
    orgId: record.orgId,
    verifiedAt: at,
  };
  const stored = (await insertOnce(deps.docs, orgCollections.verifiedDomains, claim))
    ? claim
    : await claims(deps).findOne({ _id: record.domain });
  const ours = stored?.orgId === record.orgId;
  const update = ours ? { verifiedAt: record.verifiedAt ?? at, lastCheck: { at, message } } : {
    lastCheck: {
      at,
      message:
        `${record.domain} is already verified for another organization; it can be verified for one organization only.`,
    },
  };
  await domains(deps).updateOne({ _id: record._id }, { $set: update });
  return { ...record, ...update };
}

/**
 * Checks the TXT record of a domain of `orgId` and records what was found: verified when a record holds
 * the domain's value. A domain verified already is answered as it is.
 * @throws PlatformError `not_found` (404); `dns_failed` (502) from the lookup (also recorded as the last check)
 */
export async function verifyDomain(deps: DomainDeps, orgId: string, domain: string): Promise<DomainRecord> {
  const record = await getDomain(deps, orgId, domain);
  if (record.verifiedAt) return record;
  if (!deps.dnsVerification) return markVerified(deps, record, 'Verified (PLATFORM_DNS_VERIFICATION is off).');
  const name = txtNameOf(record.domain);
  let found: string[];
  try {
    found = await deps.txt.txtRecords(name);
  } catch (error) {
    if (!isPlatformError(error, 'dns_failed')) throw error;
    await domains(deps).updateOne({ _id: record._id }, {
      $set: { lastCheck: { at: deps.clock.now(), message: error.message } },
    });
    throw error;
  }
  if (found.some((value) => value.trim() === record.txtValue)) {
    return markVerified(deps, record, `Found the TXT record ${name}.`);
  }
  const message = found.length === 0
    ? `No TXT record ${name} was found yet. Create it with the value shown, then verify again (DNS changes can ` +
      `take a while to appear).`
    : `${name} has ${found.length} TXT record(s), none with the value ${record.txtValue}; fix the record, then ` +
      `verify again.`;
  const lastCheck = { at: deps.clock.now(), message };
  await domains(deps).updateOne({ _id: record._id }, { $set: { lastCheck } });
  return { ...record, lastCheck };
}

/**
 * Changes a domain's auto-onboarding switch or default group. Turning auto-onboarding on needs an
 * Organization Owner and a verified domain; a manager may turn it off or change the group.
 * @throws PlatformError `not_found` (404) for the domain or group; `owner_required` (403);
 *   `domain_unverified` (409)
 */
export async function updateDomain(
  deps: DomainDeps,
  access: OrgAccess,
  domain: string,
  change: { autoOnboarding?: boolean; defaultGroup?: string },
): Promise<DomainRecord> {
  const record = await getDomain(deps, access.org._id, domain);
  const set: Partial<DomainRecord> = {};
  if (change.defaultGroup !== undefined) {
    set.defaultGroupId = (await getGroup(deps, access.org._id, change.defaultGroup))._id;
  }
  if (change.autoOnboarding === true && !record.autoOnboarding) {
    if (!access.groups.some((g) => g.builtin === 'owner')) {
      throw new PlatformError(
        'owner_required',
        'Only an Organization Owner can turn auto-onboarding on; ask one of them.',
        { status: 403 },
      );
    }
    if (!record.verifiedAt) {
      throw new PlatformError(
        'domain_unverified',
        `${record.domain} is not verified yet; verify it first, then turn auto-onboarding on.`,
        { status: 409 },
      );
    }
  }
  if (change.autoOnboarding !== undefined) set.autoOnboarding = change.autoOnboarding;
  if (Object.keys(set).length > 0) await domains(deps).updateOne({ _id: record._id }, { $set: set });
  return { ...record, ...set };
}

/** Removes a domain of `orgId` and its verification claim (pending offers it made stay until decided or expired).
 * @throws `not_found` (404) */
export async function removeDomain(deps: Pick<OrgDeps, 'docs'>, orgId: string, domain: string): Promise<void> {
  const record = await getDomain(deps, orgId, domain);
  await claims(deps).deleteOne({ _id: record.domain, orgId });
  await domains(deps).deleteOne({ _id: record._id });
}

/** The domain record verified for `domain` with auto-onboarding on, if any. */
export async function onboardingDomain(deps: Pick<OrgDeps, 'docs'>, domain: string): Promise<DomainRecord | undefined> {
  const claim = await claims(deps).findOne({ _id: domain });
  if (!claim) return undefined;
  const record = await domains(deps).findOne({ _id: `${claim.orgId}:${domain}` });
  return record?.verifiedAt && record.autoOnboarding ? record : undefined;
}
