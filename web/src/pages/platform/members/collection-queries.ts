/**
 * Server state of the Collections tab: an organization's collections with its connection of each (any member reads
 * them), storing a token, starting an OAuth Connect and Disconnect (organization:manage). The list lives under
 * `['orgs', org]`, so a change of the organization refreshes it too.
 *
 * Source: spec/platform-service.md § Rules 15, 17; docs/decisions.md D22 § 4.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CollectionView } from '../../../../../core/collection/connections.ts';
import { api } from '../../../api/client.ts';
import { orgPath } from './queries.ts';

/** GET /api/orgs/:org/collections. */
export interface CollectionListAnswer {
  collections: CollectionView[];
  /** Whether the caller may connect and disconnect (organization:manage). */
  canManage: boolean;
}

/** POST /api/orgs/:org/collections/:collection/connect: where the browser goes next. */
export interface ConnectAnswer {
  authorizeUrl: string;
  app: string;
}

/** The list's query key. */
export const collectionKey = (org: string) => ['orgs', org, 'collections'] as const;

/** `/api/orgs/<org>/collections/<collection><rest>`. */
export function collectionPath(org: string, collection: string, rest = ''): string {
  return orgPath(org, `/collections/${encodeURIComponent(collection)}${rest}`);
}

/** GET /api/orgs/:org/collections. */
export function useCollections(org: string) {
  return useQuery({ queryKey: collectionKey(org), queryFn: () => api<CollectionListAnswer>(orgPath(org, '/collections')) });
}

/** A change of one collection of `org`; on success the list is read again before the mutation counts as done. */
function useCollectionChange<T, V>(org: string, request: (vars: V) => { method: string; path: string; body?: unknown }) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (vars: V) => {
      const r = request(vars);
      return api<T>(r.path, { method: r.method, ...(r.body === undefined ? {} : { body: r.body }) });
    },
    onSuccess: () => client.invalidateQueries({ queryKey: collectionKey(org) }),
  });
}

/** PUT …/token `{token}`: the organization's own token (400 `invalid_token` says what is wrong). */
export function useSaveToken(org: string, collection: string) {
  return useCollectionChange<CollectionView, string>(org, (token) => ({ method: 'PUT', path: collectionPath(org, collection, '/token'), body: { token } }));
}

/** DELETE …: Disconnect (its agents lose access at once). */
export function useDisconnect(org: string, collection: string) {
  return useCollectionChange<unknown, void>(org, () => ({ method: 'DELETE', path: collectionPath(org, collection) }));
}

/** POST …/connect: the provider's authorization URL (nothing changes until the callback; no refresh). */
export function useStartConnect(org: string, collection: string) {
  return useMutation({ mutationFn: () => api<ConnectAnswer>(collectionPath(org, collection, '/connect'), { method: 'POST', body: {} }) });
}

/** POST …/finish `{state, key}`: finishes a Connect the provider answered (only the member who started it). */
export function useFinishConnect(org: string) {
  return useCollectionChange<CollectionView, { collection: string; state: string; key: string }>(org, (v) => ({
    method: 'POST', path: collectionPath(org, v.collection, '/finish'), body: { state: v.state, key: v.key },
  }));
}
