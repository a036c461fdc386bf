/**
 * Imported first by the Chat page's conversation (conversation.ts), before `@ag-ui/client`: the client validates
 * with its own copy of zod (3.25, through `zod/v4`), whose first object parse probes `new Function('')` once; the
 * CSP (`script-src 'self'`) refuses it and reports a violation. jitless skips the probe and the code generation it
 * guards. That copy keeps its settings to itself (the app's own zod 4 shares one global setting, set by
 * web/src/pages/semantic/playground/zod-jitless.ts and here too), so it is configured through its own path; when
 * npm stops nesting it (the client moves to the app's zod) this import fails the build, and the line goes.
 */
import { config as nestedZodConfig } from '../../../../../node_modules/@ag-ui/client/node_modules/zod/v4/index.js';
import { config } from 'zod/v4';

nestedZodConfig({ jitless: true });
config({ jitless: true });
