/**
 * API request rules: the Elysia plugin applied before every route, and the helpers routes call.
 *
 * Source: spec/platform-service.md § Authentication; § Events (Access log); § Errors; § Limits.
 */
export { requestRules, type RequestRules, type RequestRulesOptions } from './request-rules.ts';
export { ALB_IDENTITY_HEADER, bearerToken, createPrincipalResolver, type PrincipalResolverOptions, type SignInVerification } from './sign-in.ts';
export { createUserRate, UserRateLimitedError, type ConsumeUserRate, type UserRateOptions } from './user-rate.ts';
export { isCrossSiteRequest, refuseCrossSite, type CrossSitePolicy } from './cross-site.ts';
export { refuseForeignHost, requestHost } from './host-check.ts';
export {
  bodyLimitFor, isJsonType, jsonOnly, maxIncomingBodyBytes, maxJsonBytes, maxUploadBytes, payloadTooLarge, refuseOversizedBody, requireJsonBody,
} from './body-limits.ts';
export { checksOwnCallers, requestPath, signInNeed, type SignInNeed } from './route-classes.ts';
