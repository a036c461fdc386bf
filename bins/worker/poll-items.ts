/**
 * The items of a poll, read from what the polled tool answered (inside the call worker: the service's output is data
 * the platform does not control). Convention (docs/agent-format.md § Polling and callback triggers):
 * - the tool's structured content `{items: [...]}` (or a structured array) is the list;
 * - else its text is parsed as JSON: an array is the list, an object's `items` array is the list;
 * - each item's id is its `id` field (a string or a number, as text), else `sha256-<hex>` of its canonical JSON
 *   (object keys sorted at every depth), so the same item always has the same id.
 *
 * Source: spec/platform-service.md § Rules 4, 6 (a poll runs in a call worker); docs/agent-format.md § Triggers
 * (polling: the collection call to poll); docs/decisions.md D8 (polling triggers).
 */
import { createHash } from 'node:crypto';
import { PlatformError } from '../../core/ports/platform-error.ts';
import { canonicalJson } from '../../core/trigger/canonical-json.ts';

/** One item a poll read: its id and the item itself. */
export interface PolledItem {
  id: string;
  item: unknown;
}

/** Longest item id taken from an item's own `id` field (characters); longer ids are hashed. */
const maxOwnIdLength = 200;

/**
 * The list of items in a tool's output (the catalog's `output`: structured content, else the joined text).
 * @throws PlatformError `poll_result_unreadable` when the output holds no list of items (names what it found)
 */
export function pollItems(output: unknown): unknown[] {
  const fromValue = (value: unknown): unknown[] | undefined => {
    if (Array.isArray(value)) return value;
    if (value !== null && typeof value === 'object' && Array.isArray((value as { items?: unknown }).items)) return (value as { items: unknown[] }).items;
    return undefined;
  };
  if (typeof output !== 'string') {
    const items = fromValue(output);
    if (items) return items;
    throw unreadable('its structured content has no "items" array');
  }
  let parsed: unknown;
  try {
    parsed = output.trim() === '' ? undefined : JSON.parse(output);
  } catch {
    throw unreadable('its text is not JSON');
  }
  const items = fromValue(parsed);
  if (items) return items;
  throw unreadable('its JSON is neither an array nor an object with an "items" array');
}

/** The id of one item: its own `id` (string or finite number, ≤ 200 characters), else `sha256-<hex of canonical JSON>`. */
export function itemIdOf(item: unknown): string {
  const own = item !== null && typeof item === 'object' && !Array.isArray(item) ? (item as { id?: unknown }).id : undefined;
  if ((typeof own === 'string' && own.length > 0) || (typeof own === 'number' && Number.isFinite(own))) {
    const text = String(own);
    if (text.length <= maxOwnIdLength) return text;
  }
  return `sha256-${createHash('sha256').update(canonicalJson(item)).digest('hex')}`;
}

/**
 * The items of a tool's output with their ids; an item seen twice in one answer is kept once.
 * @throws PlatformError `poll_result_unreadable` (see {@link pollItems})
 */
export function polledItems(output: unknown): PolledItem[] {
  const seen = new Set<string>();
  const out: PolledItem[] = [];
  for (const item of pollItems(output)) {
    const id = itemIdOf(item);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ id, item });
  }
  return out;
}

function unreadable(what: string): PlatformError {
  return new PlatformError('poll_result_unreadable', `The polled tool's answer holds no list of items: ${what}. Answer {"items": [...]} as structured content or as JSON text.`);
}
