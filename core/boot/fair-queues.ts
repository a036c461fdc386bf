/**
 * The queues every process opens fair (core/adapters/redis/fair-queue.ts): the turn queues (interactive first, then
 * round robin between organizations and their agents) and the webhook firings' queue (round robin between
 * organizations and their agents). Every process that adds to or consumes one of them must open it fair, so the API,
 * the dispatcher and the `cairn` command all take this list.
 *
 * Source: docs/decisions.md D24 § 1.
 */
import { FAIR_TURN_QUEUES } from '../session/turn-jobs.ts';
import { WEBHOOK_FIRING_QUEUE } from '../trigger/webhook-firings.ts';

/** Names of the fair queues. */
export const FAIR_QUEUES: readonly string[] = [...FAIR_TURN_QUEUES, WEBHOOK_FIRING_QUEUE];
