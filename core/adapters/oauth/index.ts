/**
 * OAuth adapters (public edge of core/adapters/oauth): the OAuthClient over openid-client.
 *
 * Source: spec/platform-service.md § Rules 17.
 */
export { createOAuthClient, type OAuthClientOptions } from './oauth-client.ts';
