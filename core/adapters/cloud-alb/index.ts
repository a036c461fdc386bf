/**
 * Cloud load-balancer sign-in adapter: verification of the signed identity header (x-lb-oidc-data).
 *
 * Source: spec/platform-service.md § Platform sign-in modes (cloud-alb).
 */
export { createAlbVerifier, regionOfArn, type AlbVerifier, type AlbVerifierOptions } from './alb-verifier.ts';
export { regionKeyUrlBase } from './alb-keys.ts';
export { parseAlbToken, type AlbToken } from './alb-token.ts';
