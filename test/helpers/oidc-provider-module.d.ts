/**
 * The slice of the `oidc-provider` package the test provider uses (the package ships no type declarations
 * and @types/oidc-provider is not installed).
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** An OpenID Provider; `callback()` is its Node request listener. */
  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    /** The login or consent prompt pending for this request's interaction cookie. */
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ uid: string; prompt: { name: string }; params: Record<string, unknown> }>;
    /** Ends the interaction with `result` (e.g. `{ login: { accountId } }`) and redirects back to the authorization. */
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
  }
}
