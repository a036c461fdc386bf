/**
 * Decision links, no sign-in (the token in the address is the right to decide, once):
 * - `GET /api/decisions/<token>`: `{state, options: [{to, description}], fields?, expiresAt, expiresTo?}`, for the
 *   page a mail or chat message leads to (web/src/pages/decide/, at `/decide/<token>`);
 * - `POST /api/decisions/<token>` `{to, comment?, fields?}`: takes the decision (channel `link`), `{turnId}`.
 * An unknown token is 404; a link used, decided another way or expired is 410 `decision_link_gone`. Neither names
 * the session. The token is redacted from access log lines (core/auth/access-log.ts).
 *
 * Source: docs/decisions.md D26 § 3.
 */
import { Type } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import type { Logger } from '../../core/ports/logger.ts';
import {
  decideThroughLink,
  type DecisionLinkDeps,
  readDecisionLink,
} from '../../core/session/decision-links.ts';
import { errorToResponse, json, readJson } from './http-helpers.ts';

/** What the decision-link routes need. */
export interface DecisionLinkRouteDeps {
  links: DecisionLinkDeps;
  logger: Logger;
}

const Slug = Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' });
const LinkDecisionBody = Type.Object({
  to: Slug,
  comment: Type.Optional(Type.String({ maxLength: 10_000 })),
  fields: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.Unknown())),
}, { additionalProperties: false });

/** Mounts `GET` and `POST /api/decisions/:token`. */
export function decisionLinkRoutes(deps: DecisionLinkRouteDeps) {
  return new Elysia()
    .get('/api/decisions/:token', async ({ params }) => {
      try {
        return json(await readDecisionLink(deps.links, params.token));
      } catch (error) {
        return errorToResponse(error, deps.logger);
      }
    })
    .post('/api/decisions/:token', async ({ request, params }) => {
      try {
        const decision = await readJson(request, LinkDecisionBody);
        return json({ turnId: await decideThroughLink(deps.links, params.token, decision) });
      } catch (error) {
        return errorToResponse(error, deps.logger);
      }
    }, { parse: 'none' });
}
