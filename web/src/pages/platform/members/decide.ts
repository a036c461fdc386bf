/**
 * Joining or dismissing an invitation offer (POST /api/invitations/link/:token/join|dismiss for the
 * consent page, POST /api/invitations/:id/join|dismiss for the offers list), and the words for the ways
 * it can be refused.
 *
 * Source: spec/platform-service.md § Authentication rules 4, 7; docs/decisions.md D10 (Members).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { InvitationDecision } from '../../../../../core/org/api-views.ts';
import { api, ApiError } from '../../../api/client.ts';

/** Which offer: by its link's token or by its id (the offers list). */
export type OfferRef = { token: string } | { id: string };

/** The path of `choice` on `ref`. */
export function decisionPath(ref: OfferRef, choice: 'join' | 'dismiss'): string {
  return 'token' in ref ? `/api/invitations/link/${encodeURIComponent(ref.token)}/${choice}` : `/api/invitations/${encodeURIComponent(ref.id)}/${choice}`;
}

/** Join or Dismiss; on success the caller's offers and organizations are read again. */
export function useDecision() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ ref, choice }: { ref: OfferRef; choice: 'join' | 'dismiss' }) => api<InvitationDecision>(decisionPath(ref, choice), { method: 'POST', body: {} }),
    onSuccess: () => Promise.all([
      client.invalidateQueries({ queryKey: ['invitation-offers'] }),
      client.invalidateQueries({ queryKey: ['invitation-link'] }),
      client.invalidateQueries({ queryKey: ['orgs'] }),
    ]),
  });
}

/**
 * A refusal of Join or Dismiss in words: the offer was for another address (403
 * `invitation_other_address`), is closed (409 `invitation_closed`: already joined, dismissed or revoked,
 * or replaced), or expired (410 `invitation_expired`); anything else keeps the API's message.
 */
export function refusalText(error: unknown, signedInAs?: string, invited?: string): Refusal {
  const code = error instanceof ApiError ? error.code : undefined;
  const final = code !== undefined && finalCodes.has(code);
  return { ...words(error, code, signedInAs, invited), final, ...(code ? { code } : {}) };
}

/** Refusals that asking again cannot change (the buttons go away). */
const finalCodes = new Set(['invitation_other_address', 'invitation_closed', 'invitation_expired', 'invitation_not_found']);

/** A refusal in words; `final` when Join/Dismiss cannot succeed by trying again; `code` the API's. */
export interface Refusal { title: string; message: string; final: boolean; code?: string }

function words(error: unknown, code: string | undefined, signedInAs?: string, invited?: string): { title: string; message: string } {
  if (code === 'invitation_other_address') {
    return { title: 'This invitation is for another address', message: `You are signed in as ${signedInAs ?? 'another address'}${invited ? `, but the invitation is for ${invited}` : ''}. Sign out and sign in with the invited address to answer it.` };
  }
  if (code === 'invitation_closed') return { title: 'This invitation is closed', message: 'It was already answered, revoked or replaced by a newer invitation. Ask the person who invited you for a new link if you still want to join.' };
  if (code === 'invitation_expired') return { title: 'This invitation has expired', message: 'Ask the person who invited you for a new invitation.' };
  if (code === 'invitation_not_found') return { title: 'Invitation not found', message: 'This invitation link is not valid: it may be mistyped, or replaced by a newer invitation. Ask the person who invited you for a new link.' };
  return { title: 'Something went wrong', message: error instanceof Error ? error.message : String(error) };
}
