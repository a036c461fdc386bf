/**
 * The decision link page's requests and rules (docs/decisions.md D26 § 3): reading the decision of a link
 * (`GET /api/decisions/<token>`) and taking it (`POST` `{to, comment?, fields?}`), both without sign-in and without a
 * Referer (the page's address holds the token); the `fields` a decision sends from the drafts (the inputs as the
 * session page's Decision box has them, web/src/pages/platform/sessions/decision-fields.ts); which field a refusal
 * names; and what a refused link says to the person.
 *
 * Source: docs/decisions.md D26 § 3 (decision links), § 2 (fields).
 */
import type { DecisionLinkView } from '../../../../core/session/decision-links.ts';
import type { DecisionFieldSpec } from '../../../../core/session/model.ts';
import { answerOf, ApiError } from '../../api/client.ts';
import { fieldValues, type FieldDrafts } from '../platform/sessions/decision-fields.ts';

/** A link's decision as the page shows it (the view's `fields` typed). */
export type LinkDecisionView = Omit<DecisionLinkView, 'fields'> & { fields?: DecisionFieldSpec[] };

/** What deciding through a link sends. */
export interface LinkDecisionBody {
  to: string;
  comment?: string;
  fields?: Record<string, unknown>;
}

const pathOf = (token: string) => `/api/decisions/${encodeURIComponent(token)}`;

/**
 * One request to the link's address: no Referer (it would name this page, and so the token), no cookie needed.
 * @throws ApiError with the API's code and message; status 0 `unreachable` when no answer came
 */
async function call<T>(token: string, body?: LinkDecisionBody): Promise<T> {
  let response: Response;
  try {
    response = await fetch(pathOf(token), {
      method: body === undefined ? 'GET' : 'POST',
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    });
  } catch {
    throw new ApiError(0, 'unreachable', 'The cairn server cannot be reached. Check your connection and try again.');
  }
  return answerOf<T>(response);
}

/** The decision of link `token`. @throws ApiError 404 `not_found`, 410 `decision_link_gone`, … */
export const readLinkDecision = (token: string) => call<LinkDecisionView>(token);

/** Takes the decision of link `token`; answers the queued turn's id. @throws ApiError 400, 404, 410, … */
export const decideThroughLink = (token: string, body: LinkDecisionBody) => call<{ turnId: string }>(token, body);

/**
 * The `fields` to send from the drafts, or a problem per field that cannot be sent as typed (a number or JSON that
 * does not parse). A blank field is left out, required or not: the platform answers 400 naming a missing required
 * field, shown next to it, so the page says what the platform says.
 */
export function linkFieldValues(
  fields: readonly DecisionFieldSpec[],
  drafts: FieldDrafts,
): { values: Record<string, unknown>; problems: Record<string, string> } {
  const values: Record<string, unknown> = {};
  const problems: Record<string, string> = {};
  for (const field of fields) {
    const one = fieldValues([{ ...field, required: false }], { [field.name]: drafts[field.name] ?? '' });
    if ('problem' in one) problems[field.name] = one.problem;
    else Object.assign(values, one.values);
  }
  return { values, problems };
}

/** The declared field a refusal's message names (`field "amount" is required …`), if any. */
export function fieldNamedIn(message: string, fields: readonly DecisionFieldSpec[]): string | undefined {
  const named = /field "([^"]+)"/.exec(message)?.[1];
  return fields.some((f) => f.name === named) ? named : undefined;
}

/** What the page says instead of the form when the link no longer decides anything; undefined for other errors. */
export function linkEndedText(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.status === 404) return 'This link is not valid.';
  if (error.status === 410 || error.code === 'decision_link_gone') {
    return 'This decision was already taken, or it expired.';
  }
  return undefined;
}
