/**
 * Small parts the Members pages share: an action with a confirm step, and the wording of an invitation's
 * status.
 *
 * Source: docs/decisions.md D10 (Members: Remove / Leave with a confirm step).
 */
import { useState } from 'react';
import type { InvitationStatus } from '../../../../../core/org/api-views.ts';
import { Button } from '../../../ui/kit.tsx';

/**
 * A button that asks first: `label` (accessible name `ariaLabel`, which should start with `label`) shows
 * "<question>" with `confirmLabel` and Cancel; `onConfirm` runs only on the second click.
 */
export function ConfirmButton({ label, ariaLabel, question, confirmLabel, onConfirm, busy, disabled }: {
  label: string; ariaLabel?: string; question: string; confirmLabel: string; onConfirm: () => void; busy?: boolean; disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) return <Button kind="danger" onClick={() => setAsking(true)} disabled={disabled} busy={busy} aria-label={ariaLabel}>{label}</Button>;
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span className="confirm-question">{question}</span>
      <Button kind="danger" busy={busy} onClick={() => { setAsking(false); onConfirm(); }}>{confirmLabel}</Button>
      <Button onClick={() => setAsking(false)}>Cancel</Button>
    </span>
  );
}

/** The words and badge look of an invitation status. */
export function statusBadge(status: InvitationStatus | string): { text: string; className: string } {
  switch (status) {
    case 'pending': return { text: 'Pending', className: 'badge badge-warn' };
    case 'accepted': return { text: 'Joined', className: 'badge badge-ok' };
    case 'dismissed': return { text: 'Dismissed', className: 'badge' };
    case 'revoked': return { text: 'Revoked', className: 'badge' };
    case 'expired': return { text: 'Expired', className: 'badge badge-error' };
    default: return { text: status, className: 'badge' };
  }
}

/** "Ada Lovelace (ada@example.com)", or the address alone when there is no name. */
export function personText(person: { email: string; name: string | null }): string {
  return person.name ? `${person.name} (${person.email})` : person.email;
}
