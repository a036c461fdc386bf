/**
 * The offers built from the config (./offers.ts) and the client ID metadata document.
 * Source: spec/platform-service.md § Rules 17, § Endpoints (GET /api/oauth2/client-metadata).
 */
import { describe, expect, it } from 'vitest';
import { clientMetadataDocument, collectionOffers } from './offers.ts';

describe('collection offers', () => {
  it('makes a collection an app lists an OAuth collection, every other a token collection, each once', () => {
    const app = { appId: 'gh', clientId: 'c', clientSecret: 's', collections: ['code'], scopes: [], hasProvider: true };
    const offers = collectionOffers(['crm', 'code', 'crm'], [app]);
    expect([...offers.values()].map((o) => [o.id, o.kind, o.app?.appId])).toEqual([
      ['crm', 'token', undefined],
      ['code', 'oauth', 'gh'],
    ]);
  });
});

describe('the client ID metadata document', () => {
  it('is served only for an https OAUTH2_REDIRECT_URL at /api/oauth2/callback, naming itself as the client id', () => {
    expect(clientMetadataDocument('https://cairn.example/api/oauth2/callback', 'Acme agents')).toEqual({
      client_id: 'https://cairn.example/api/oauth2/client-metadata',
      client_name: 'Acme agents',
      client_uri: 'https://cairn.example',
      redirect_uris: ['https://cairn.example/api/oauth2/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    for (const url of [undefined, 'http://cairn.example/api/oauth2/callback', 'https://cairn.example/oauth/callback']) {
      expect(clientMetadataDocument(url)).toBeUndefined();
    }
  });
});
