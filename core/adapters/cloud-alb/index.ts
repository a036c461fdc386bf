/**
 * Cloud load-balancer sign-in adapter: verification of the signed identity header (x-lb-oidc-data).
 *
 * Source: spec/platform-service.md § Platform sign-in modes (cloud-alb).
 */
export { type AlbVerifier, type AlbVerifierOptions, createAlbVerifier, regionOfArn } from './alb-verifier.ts';
export { regionKeyUrlBase } from './alb-keys.ts';
export { type AlbToken, parseAlbToken } from './alb-token.ts';
