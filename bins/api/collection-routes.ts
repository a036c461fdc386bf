/**
 * Organizations' connections of tool collections (signed in; a member of another organization gets 404 naming
 * nothing):
 * - `GET /api/orgs/:org/collections` (any member): `{collections: [{id, kind, connection, usesDeploymentToken,
 *   offered, app?}], canManage}`
 * - `PUT /api/orgs/:org/collections/:collection/token` `{token}` (organization:manage): stores the organization's
 *   own token for a token collection (400 `invalid_token`, 409 `collection_signs_in`)
 * - `POST /api/orgs/:org/collections/:collection/connect` (organization:manage): starts the OAuth Connect;
 *   answers `{authorizeUrl, app}`, where the browser goes next (409 `collection_takes_token`, 503
 *   `oauth_app_incomplete` / `oauth_redirect_unset`)
 * - `DELETE /api/orgs/:org/collections/:collection` (organization:manage): Disconnect (404 `not_connected`)
 * - `GET /api/oauth2/client-metadata` (no sign-in): the platform's client ID metadata document, only when
 *   OAUTH2_REDIRECT_URL is https with path /api/oauth2/callback (else 404)
 * - `GET /api/oauth2/callback?<query>` (no sign-in): the provider's redirect; records its answer on the connect its
 *   state names and answers only a redirect to the organization's Collections page with `finish=<state>&key=<key>`
 *   (or `connect_error=<code>`), and `collection=<collection>`
 * - `POST /api/orgs/:org/collections/:collection/finish` `{state, key}` (the member who started the Connect): the
 *   code exchanged, the connection saved; answers the collection's view (404 `oauth_connect_unknown`)
 *
 * Source: spec/platform-service.md § Rules 17, § Endpoints (GET /api/oauth2/callback); docs/decisions.md D22 § 4.
 */
import { Type } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import {
  clientMetadataDocument,
  type CollectionDeps,
  type ConnectAnswer,
  connectToken,
  disconnect,
  answerConnect,
  finishConnect,
  listCollections,
  startConnect,
} from '../../core/collection/index.ts';
import type { OrgCaller } from '../../core/org/model.ts';
import { callerRoutes, type CallerRouteDeps } from './caller-route.ts';
import { json, readJson } from './http-helpers.ts';

/** What the collection routes need. */
export interface CollectionRouteDeps extends CallerRouteDeps<OrgCaller> {
  collections: CollectionDeps;
  /** The client metadata document's `client_name` (the branding title); default `cairn`. */
  clientName?: string;
}

type Target = { org: string; collection: string };
const TokenBody = Type.Object({ token: Type.String() }, { additionalProperties: false });
const FinishBody = Type.Object({ state: Type.String({ maxLength: 200 }), key: Type.String({ maxLength: 200 }) }, {
  additionalProperties: false,
});

/** Mounts the routes (behind the request rules). */
export function collectionRoutes(env: CollectionRouteDeps) {
  const route = callerRoutes(env);
  const deps = env.collections;
  return new Elysia()
    .get('/api/orgs/:org/collections', route<{ org: string }>(async ({ params, caller }) =>
      json(await listCollections(deps, caller, params.org))
    ))
    .put('/api/orgs/:org/collections/:collection/token', route<Target>(async ({ request, params, caller }) => {
      const body = await readJson(request, TokenBody);
      const target = { orgId: params.org, collection: params.collection, token: body.token };
      return json(await connectToken(deps, caller, target));
    }), { parse: 'none' })
    .post('/api/orgs/:org/collections/:collection/connect', route<Target>(async ({ params, caller }) =>
      json(await startConnect(deps, caller, { orgId: params.org, collection: params.collection }))
    ), { parse: 'none' })
    .post('/api/orgs/:org/collections/:collection/finish', route<Target>(async ({ request, params, caller }) => {
      const body = await readJson(request, FinishBody);
      return json(await finishConnect(deps, caller, { orgId: params.org, collection: params.collection, ...body }));
    }), { parse: 'none' })
    .delete('/api/orgs/:org/collections/:collection', route<Target>(async ({ params, caller }) => {
      await disconnect(deps, caller, { orgId: params.org, collection: params.collection });
      return new Response(null, { status: 204 });
    }))
    .get('/api/oauth2/client-metadata', () => {
      const document = clientMetadataDocument(deps.redirectUrl, env.clientName);
      if (!document) {
        const message = 'No client metadata document: OAUTH2_REDIRECT_URL is not an https URL ending in ' +
          '/api/oauth2/callback.';
        return json({ error: { code: 'not_found', message } }, 404);
      }
      return json(document);
    })
    .get('/api/oauth2/callback', async ({ request }) => {
      const query = Object.fromEntries(new URL(request.url).searchParams);
      const answer = await answerConnect(deps, query).catch((error: unknown) => {
        env.logger.error({ err: error instanceof Error ? error.message : 'unknown' }, 'oauth2 callback failed');
        return { error: 'oauth_callback_failed' } as ConnectAnswer;
      });
      const page = answer.orgId ? `/members/${encodeURIComponent(answer.orgId)}/collections` : '/members';
      const next = new URLSearchParams(
        answer.finish ? { finish: answer.finish.state, key: answer.finish.key } : { connect_error: answer.error ?? '' },
      );
      if (answer.collection) next.set('collection', answer.collection);
      return new Response(null, {
        status: 303,
        headers: { location: `${page}?${next}`, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
      });
    });
}
