/**
 * /silent-callback.html: the hidden frame's landing page, handing the provider's answer to the web app
 * (spec/platform-service.md § Platform sign-in modes, oidc).
 */
import { UserManager } from 'oidc-client-ts';

// The frame only posts the answer back to its parent; the settings are never used to call the provider.
void new UserManager({ authority: location.origin, client_id: 'cairn-web', redirect_uri: location.href }).signinSilentCallback().catch(() => undefined);
