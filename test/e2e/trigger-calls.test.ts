/**
 * Polling and callback triggers through the product (front proxy, API, dispatcher, call workers) against a real MCP
 * service on loopback (test/helpers/trigger-service.ts), configured as the `tickets` collection. The test agent
 * `watch` polls `list_tickets` every minute and subscribes to `ticket.closed` callbacks.
 * - Polling: the first poll takes a baseline (the ticket already there fires nothing); each ticket added later opens
 *   one session, and a later poll that sees it again opens none.
 * - Callbacks: activation calls `subscribe` with the callback URL on APP_BASE_URL; a GET check is answered by the
 *   collection; a POST is answered 202 and opens one session, also when retried; an unknown address is 404 and a
 *   body over 256 KiB is 413.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.ts';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { unlistedCollections } from '../helpers/stored-collections.ts';
import { startTriggerService, type TriggerService } from '../helpers/trigger-service.ts';

let service: TriggerService;
let product: RunningProduct;

beforeAll(async () => {
  service = await startTriggerService();
  service.tickets.push({ id: 't-0', title: 'already open before the publish' });
  const port = await freePort();
  const config = { services: [{ id: 'tickets', endpoint: service.endpoint, token: service.token }] };
  product = await startProduct({ PORT: String(port), APP_BASE_URL: `http://127.0.0.1:${port}`, PLATFORM_CONFIG: JSON.stringify(config) });
  const imported = runCairn(product.url, ['agent', 'import', join(repoRoot, 'test/fixtures/agents/watch'), '--agent', 'watch', '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await product?.stop();
  await service?.close();
});

type Fired = { status: string; variables: { trigger: Record<string, unknown> } };
const sessionsOf = async (workflow: string) => (await (await fetch(`${product.url}/api/agents/watch/environments/main/workflows/${workflow}/sessions`)).json() as { sessions: Fired[] }).sessions;

/** Waits (up to `seconds`) until `check` gives a value; fails naming `what` with the product's last lines. */
async function waitUntil<T>(what: string, check: () => Promise<T | undefined> | T | undefined, seconds = 150): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Waited ${seconds} s for ${what}. Output:\n${product.output.slice(-30).join('\n')}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('callback triggers', () => {
  let callbackUrl: string;

  it('subscribe with their callback address on APP_BASE_URL when they activate', { timeout: 180_000 }, async () => {
    const subscription = await waitUntil('the subscribe call', () => service.calls.subscribe?.[0]);
    expect(subscription).toEqual({ event: 'ticket.closed', arguments: { project: 'demo' }, callbackUrl: expect.stringMatching(new RegExp(`^${product.url}/api/callbacks/[A-Za-z0-9_-]{32}$`)) });
    callbackUrl = String(subscription.callbackUrl);
  });

  it('answer a GET or HEAD check with the collection\'s response', async () => {
    const check = await fetch(`${callbackUrl}?challenge=c-42`);
    expect(check.status).toBe(200);
    expect(await check.text()).toBe('c-42');
    const head = await fetch(`${callbackUrl}?challenge=c-43`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(service.calls.callback.map((c) => (c.request as { method: string }).method)).toEqual(['GET', 'HEAD']);
    expect(service.calls.callback[0]).toMatchObject({ event: 'ticket.closed', request: { method: 'GET', query: { challenge: 'c-42' } } });
  });

  it('answer a POST 202 at once and open one session per firing, also when the sender retries', { timeout: 120_000 }, async () => {
    const post = () => fetch(callbackUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-delivery-id': 'cb-1' }, body: JSON.stringify({ id: 'closed-7', ticket: 7 }) });
    const first = await post();
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ delivery: 'cb-1' });
    expect((await post()).status).toBe(202);
    const [session] = await waitUntil('the callback session', async () => { const s = await sessionsOf('events'); return s.length > 0 && s.every((x) => x.status !== 'running') ? s : undefined; });
    expect(session.variables.trigger).toMatchObject({ id: 'pushed', type: 'callback', collection: 'tickets', event: 'ticket.closed', firingId: 'closed-7', payload: { id: 'closed-7', ticket: 7 } });
    // Another delivery of the same firing id opens nothing more (the dispatcher logs how many firings were new).
    expect((await fetch(callbackUrl, { method: 'PUT', headers: { 'content-type': 'application/json', 'x-delivery-id': 'cb-2' }, body: JSON.stringify({ id: 'closed-7', again: true }) })).status).toBe(202);
    await waitUntil('the run of delivery cb-2', () => (product.output.some((line) => /delivery cb-2 gave 1 firing\(s\), 0 new/.test(line)) ? true : undefined));
    expect(product.output.filter((line) => /delivery cb-1 gave 1 firing\(s\), 1 new/.test(line))).toHaveLength(1);
    expect(await sessionsOf('events')).toHaveLength(1);
  });

  it('answer 404 for an unknown address and 413 for a body over 256 KiB', async () => {
    expect((await fetch(`${product.url}/api/callbacks/not-an-address`, { method: 'POST', body: '{}' })).status).toBe(404);
    const big = await fetch(callbackUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(256 * 1024) }) });
    expect(big.status).toBe(413);
    expect((await big.json() as { error: { message: string } }).error.message).toMatch(/256 KiB/);
  });
});

describe('polling triggers', () => {
  it('take a baseline on the first poll, then fire each new item once', { timeout: 300_000 }, async () => {
    const polls = () => service.calls.list_tickets?.length ?? 0;
    await waitUntil('the first poll', () => (polls() >= 1 ? true : undefined));
    expect(service.calls.list_tickets[0]).toEqual({ state: 'open' });
    service.tickets.push({ id: 't-1', title: 'new after the baseline' });
    const firstPolls = polls();
    await waitUntil('a poll after t-1 was added', () => (polls() > firstPolls ? true : undefined));
    const [one] = await waitUntil('the session of t-1', async () => { const s = await sessionsOf('tickets'); return s.length > 0 ? s : undefined; });
    expect(one.variables.trigger).toMatchObject({ id: 'new-tickets', type: 'polling', collection: 'tickets', tool: 'list_tickets', itemId: 't-1', item: { id: 't-1', title: 'new after the baseline' } });
    service.tickets.push({ id: 't-2', title: 'another' });
    const secondPolls = polls();
    await waitUntil('a poll after t-2 was added', () => (polls() > secondPolls ? true : undefined));
    const sessions = await waitUntil('the session of t-2', async () => { const s = await sessionsOf('tickets'); return s.length >= 2 ? s : undefined; });
    expect(sessions.map((s) => s.variables.trigger.itemId).sort()).toEqual(['t-1', 't-2']);
    expect(product.output.some((line) => /first poll recorded 1 item\(s\) as already seen/.test(line))).toBe(true);
  });

  it('stores nothing in a collection the release does not list', () => {
    expect(unlistedCollections(product.dataDir)).toEqual([]);
  });
});
