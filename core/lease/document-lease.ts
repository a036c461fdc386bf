/**
 * Lease on the document store: one document per lease name holding `holder` and `expiresAt`,
 * changed only by conditional updates, so two processes (or two containers on one data volume)
 * never both hold it. Used for the single-dispatcher lease of the embedded queue store mode, whose
 * queue stores are not shared between containers while the document store is.
 *
 * Source: spec/platform-service.md § Single-dispatcher lease, § Rules 3.
 */
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { checkedLeaseArgument, checkedLeaseTtlMs, type Lease } from '../ports/lease.ts';
import { isPlatformError } from '../ports/platform-error.ts';

/** Collection of lease documents. */
export const leaseCollection = 'leases';

interface LeaseDocument {
  _id: string;
  holder: string | null;
  expiresAt: Date;
  schemaVersion: number;
}

/**
 * A Lease on `docs`, timed by `clock`.
 * @throws PlatformError `invalid_argument` (400) from every call given an empty name or owner, or a ttl that
 *   is not a positive number of milliseconds
 */
export function createDocumentLease(docs: DocumentStore, clock: Clock): Lease {
  const leases = docs.collection<LeaseDocument>(leaseCollection);
  const until = (ttlMs: number) => new Date(clock.now().getTime() + checkedLeaseTtlMs(ttlMs));
  return {
    async acquire(name, owner, ttlMs) {
      checkedLeaseArgument('name', name);
      checkedLeaseArgument('owner', owner);
      checkedLeaseTtlMs(ttlMs);
      const now = clock.now();
      const taken = await leases.updateOne(
        { _id: name, $or: [{ holder: owner }, { holder: null }, { expiresAt: { $lte: now } }] },
        { $set: { holder: owner, expiresAt: until(ttlMs), schemaVersion: 1 } },
      );
      if (taken.matched === 1) return true;
      try {
        await leases.insertOne({ _id: name, holder: owner, expiresAt: until(ttlMs), schemaVersion: 1 });
        return true;
      } catch (error) {
        if (isPlatformError(error, 'duplicate_key')) return false;
        throw error;
      }
    },
    async renew(name, owner, ttlMs) {
      checkedLeaseArgument('name', name);
      checkedLeaseArgument('owner', owner);
      checkedLeaseTtlMs(ttlMs);
      const renewed = await leases.updateOne({ _id: name, holder: owner, expiresAt: { $gt: clock.now() } }, {
        $set: { expiresAt: until(ttlMs) },
      });
      return renewed.matched === 1;
    },
    async release(name, owner) {
      checkedLeaseArgument('name', name);
      checkedLeaseArgument('owner', owner);
      await leases.updateOne({ _id: name, holder: owner }, { $set: { holder: null, expiresAt: clock.now() } });
    },
    async holder(name) {
      checkedLeaseArgument('name', name);
      const doc = await leases.findOne({ _id: name });
      return doc && doc.holder && doc.expiresAt.getTime() > clock.now().getTime() ? doc.holder : null;
    },
  };
}
