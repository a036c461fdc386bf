/**
 * Members, invitations and Chat under oidc, in a real browser (Debian's Chromium through playwright-core) against
 * the product as `scripts/start` starts it, signing in at the local OpenID provider over https, with a scripted model
 * computed per request:
 * - Ada signs in and installs the `front` test agent in her organization over the API (its concierge workflow chats
 *   over AG-UI connection `front`, calls its helper workflow as a sub-workflow, and asks a person to review);
 * - she chats with it from an example: the helper's child session shows as a sub-workflow block, never in the
 *   concierge's text, and she takes the review decision inline with a comment; the chat ends succeeded;
 * - she creates a Readers group (Reader on every agent) and invites grace@example.com into it; the link is shown once;
 * - Grace opens the link signed out, signs in at the provider and comes back to the consent page; signing in and
 *   reading it joined nothing; Join makes her a member in Readers;
 * - Grace, a Reader, gets no workflow to chat with, and Ada's members page lists her;
 * - with auto-onboarding on for example.com (DNS verification off here), Hal's first sign-in through an account
 *   example.com manages is offered membership and gets no personal organization; he joins from Your invitations;
 * - a connection two triggers name shows Error with the deployment's message, and Retry now reconciles again.
 * No console errors or CSP violations on any page. Screenshots (1280 and 375 px) land in test-results/web/.
 *
 * Source: docs/decisions.md D10 § Tests (chat through a decision to the end, see the sub-workflow block, invite a
 * second member
 * under oidc and have them join, check that a Reader cannot start a chat); spec/platform-service.md § Authentication
 * rules 4, 7 and 8, § Stream and custom events.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatWorkflowList } from '../../core/session/chat-views.ts';
import type { MemberListAnswer, OrganizationListAnswer } from '../../core/org/api-views.ts';
import { installAgentOverApi } from '../helpers/agent-over-api.ts';
import { launchBrowser, newTestPage, screenshotBoth, signInAtProvider, startWebApp, type StartedWebApp } from '../helpers/browser.ts';
import { startComputedModelServer } from '../helpers/demo-model.ts';
import { oidcSignInEnv, startOidcProvider, type RunningOidcProvider } from '../helpers/oidc-provider.ts';
import { freePort } from '../helpers/ports.ts';
import { repoRoot } from '../helpers/product.ts';
import type { ScriptedModelServer, ScriptedTurn } from '../helpers/scripted-model-server.ts';

interface ChatRequest {
  messages?: { role: string }[];
  tools?: { function: { name: string; parameters?: { properties?: { to?: { enum?: string[] } } } } }[];
}

/**
 * The front agent's model: the concierge calls its helper for a member's message, the helper looks the topic up and
 * finishes, and the concierge, given the helper's result, moves to review.
 */
function frontTurn(body: ChatRequest | undefined): ScriptedTurn {
  const names = body?.tools?.map((t) => t.function.name) ?? [];
  const to = body?.tools?.find((t) => t.function.name === 'platform_advance')?.function.parameters?.properties?.to?.enum?.[0];
  if (to === 'finished') return { text: 'Three flights were cancelled on 2001-01-03.', toolCalls: [{ name: 'platform_advance', arguments: { to, reason: 'looked up' } }] };
  if (names.includes('platform_workflow_helper') && body?.messages?.at(-1)?.role === 'user') {
    return { text: 'Asking the helper.', toolCalls: [{ name: 'platform_workflow_helper', arguments: { topic: 'cancelled flights' } }] };
  }
  if (to === 'review') return { text: 'The helper found three cancelled flights; please review.', toolCalls: [{ name: 'platform_advance', arguments: { to, reason: 'ready for review' } }] };
  return { text: 'Noted.' };
}

let model: ScriptedModelServer;
let provider: RunningOidcProvider;
let product: StartedWebApp;
let browser: Browser;

beforeAll(async () => {
  const port = await freePort();
  model = await startComputedModelServer((body) => frontTurn(body as ChatRequest));
  provider = await startOidcProvider([], 'https://api.cairn.test', {
    https: true,
    webClient: { origins: [`http://127.0.0.1:${port}`] },
    people: [
      { login: 'ada', email: 'ada@example.com', name: 'Ada Lovelace' },
      { login: 'grace', email: 'grace@example.com', name: 'Grace Hopper' },
      // An account example.com manages (the provider asserts the managed-domain claim).
      { login: 'hal', email: 'hal@example.com', name: 'Hal Abelson', claims: { managed_domain: 'example.com' } },
    ],
  });
  [product, browser] = await Promise.all([
    // DNS verification off: a domain counts as verified when added (the TXT path is tested against a loopback DNS server in
    // test/integration/org-invitations.test.ts and bins/api/invitation-routes.test.ts).
    startWebApp({
      ...oidcSignInEnv(provider), NODE_EXTRA_CA_CERTS: provider.certificateFile!, CAIRN_MODEL_BASE_URL: model.baseUrl, CAIRN_MODEL: 'scripted-model',
      PLATFORM_DNS_VERIFICATION: 'off', PLATFORM_MANAGED_DOMAIN_CLAIM: 'managed_domain',
    }, port),
    // The provider's certificate is self-signed (made at start).
    launchBrowser({ ignoreCertificateErrors: true }),
  ]);
}, 450_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await provider?.stop();
  await model?.close();
});

/** Watches the provider's token answers to `page` and keeps the newest access token (to call the API as that person). */
function accessTokenOf(page: Page): () => string {
  let token = '';
  page.on('response', async (response) => {
    if (response.url() !== `${provider.issuer}/token` || !response.ok()) return;
    token = ((await response.json()) as { access_token?: string }).access_token ?? token;
  });
  return () => token;
}

/** From the app's sign-in page (already shown), signs in at the provider as `login` and comes back. */
const signInAt = (page: Page, login: string) => signInAtProvider(page, provider.issuer, product.base, login);

/** A fresh browser context that opens `path` signed out, signs in at the provider as `login`, and has their access token. */
async function signedIn(login: string, path: string) {
  const opened = await newTestPage(browser, { origin: product.base });
  const token = accessTokenOf(opened.page);
  await opened.page.goto(path.startsWith('http') ? path : `${product.base}${path}`);
  await signInAt(opened.page, login);
  await expect.poll(token).not.toBe('');
  return { ...opened, token };
}

/** The first organization of the holder of `token`. */
async function firstOrg(token: string) {
  return (await apiAs<OrganizationListAnswer>(token, '/api/orgs')).organizations[0]!;
}

async function apiAs<T>(token: string, path: string): Promise<T> {
  const response = await fetch(`${product.base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
  return response.json() as Promise<T>;
}

describe('Members and Chat under oidc', () => {
  it('chats through a sub-workflow and a decision, invites Grace as a Reader, and Grace joins at the link but cannot chat', { timeout: 300_000 }, async () => {
    const ada = await signedIn('ada', '/chat');
    const adaToken = ada.token;
    await ada.page.getByRole('heading', { name: 'Chat', exact: true }).waitFor();
    const org = await firstOrg(adaToken());
    expect(org).toMatchObject({ kind: 'personal', name: 'Ada Lovelace (personal)' });
    await installAgentOverApi(product.base, adaToken(), org!.id, join(repoRoot, 'test/fixtures/agents/front'), 'front', [
      { identifier: 'front', protocol: 'agui', auth: 'public', origins: [product.base] },
    ]);

    // Chat: example → streamed answer with the helper's child session as its own block → inline decision with a comment.
    await ada.page.reload();
    const card = ada.page.locator('.chat-card', { has: ada.page.getByRole('heading', { name: 'Concierge' }) });
    await card.getByRole('button', { name: 'Look up cancelled flights.' }).click();
    await ada.page.getByRole('button', { name: 'Send' }).click();
    const sub = ada.page.locator('details.chat-sub');
    await sub.locator('summary', { hasText: 'Sub-workflow helper' }).waitFor({ timeout: 60_000 });
    await ada.page.getByText('Decision needed').waitFor({ timeout: 60_000 });
    await sub.locator('summary').click();
    await sub.getByText('Three flights were cancelled on 2001-01-03.').first().waitFor();
    // The child's text is in its block only, never among the concierge's own messages.
    await expect(ada.page.locator('.chat-msg-assistant', { hasText: 'Three flights were cancelled' }).count()).resolves.toBe(0);
    await ada.page.locator('.chat-msg-assistant', { hasText: 'The helper found three cancelled flights' }).waitFor();
    // The tool call behind it, opened: its input and its result.
    const call = ada.page.locator('.chat-tool', { hasText: 'platform_workflow_helper' });
    await call.locator('summary').click();
    await expect(call.getByLabel('Input').textContent()).resolves.toContain('"topic": "cancelled flights"');
    await expect(call.getByLabel('Result').textContent()).resolves.toContain('Three flights were cancelled on 2001-01-03.');
    await screenshotBoth(ada.page, 'members-chat-sub-workflow', { fullPage: true });
    await ada.page.getByLabel('Comment (optional)').fill('Matches the operations log.');
    await ada.page.getByRole('button', { name: 'approved', exact: true }).click();
    await ada.page.getByText(/This chat has ended \(succeeded\)/).waitFor({ timeout: 60_000 });

    // A Readers group, then an invitation of Grace into it; the link is shown once.
    await ada.page.getByRole('link', { name: 'Members', exact: true }).click();
    await ada.page.getByRole('heading', { name: /^Members/ }).waitFor();
    await screenshotBoth(ada.page, 'members-list', { fullPage: true });
    await ada.page.getByRole('link', { name: 'Groups' }).click();
    await ada.page.getByRole('button', { name: 'New group' }).click();
    const form = ada.page.getByRole('form', { name: 'New group' });
    await form.getByLabel('Name', { exact: true }).fill('Readers');
    await form.getByRole('checkbox', { name: /workflows:use/ }).uncheck();
    await expect(form.getByLabel('Agent 1', { exact: true }).inputValue()).resolves.toBe('*');
    await form.getByLabel('Role 1', { exact: true }).selectOption('reader');
    await form.getByRole('button', { name: 'Create group' }).click();
    await ada.page.getByRole('heading', { name: 'Readers' }).waitFor();
    await screenshotBoth(ada.page, 'members-groups', { fullPage: true });

    await ada.page.getByRole('link', { name: 'Invitations' }).click();
    await ada.page.getByLabel('E-mail address').fill('grace@example.com');
    // The built-in User group is offered first; Grace joins as a Reader only.
    await ada.page.getByRole('checkbox', { name: 'User', exact: true }).uncheck();
    await ada.page.getByRole('checkbox', { name: 'Readers', exact: true }).check();
    await ada.page.getByRole('button', { name: 'Invite', exact: true }).click();
    const link = (await ada.page.getByLabel('Invitation link', { exact: true }).textContent())!.trim();
    expect(link).toMatch(new RegExp(`^${product.base}/invite/[A-Za-z0-9_-]{43}$`));
    await screenshotBoth(ada.page, 'members-invitation-link', { fullPage: true });

    // Grace, signed out, opens the link, signs in, and comes back to the consent page; nothing is joined yet.
    const grace = await signedIn('grace', link);
    const graceToken = grace.token;
    await grace.page.waitForURL(link);
    const joinButton = grace.page.getByRole('button', { name: `Join ${org!.name}` });
    await joinButton.waitFor();
    await grace.page.getByText('Readers').first().waitFor();
    await screenshotBoth(grace.page, 'members-invite-consent', { fullPage: true });
    const before = await apiAs<MemberListAnswer>(adaToken(), `/api/orgs/${org!.id}/members`);
    expect(before.members.map((m) => m.email)).toEqual(['ada@example.com']);

    await joinButton.click();
    await grace.page.getByText(/You joined/).waitFor();
    await screenshotBoth(grace.page, 'members-invite-joined', { fullPage: true });
    const after = await apiAs<MemberListAnswer>(adaToken(), `/api/orgs/${org!.id}/members`);
    expect(after.members.map((m) => m.email)).toEqual(['ada@example.com', 'grace@example.com']);

    // A Reader gets no workflow to chat with; the member with User (Ada) gets the concierge.
    await grace.page.goto(`${product.base}/chat`);
    await grace.page.getByText('No published workflow you may use has a chat trigger.').waitFor();
    await expect(grace.page.locator('.chat-card').count()).resolves.toBe(0);
    await screenshotBoth(grace.page, 'members-reader-chat', { fullPage: true });
    expect((await apiAs<ChatWorkflowList>(graceToken(), '/api/chat/workflows')).workflows).toEqual([]);
    expect((await apiAs<ChatWorkflowList>(adaToken(), '/api/chat/workflows')).workflows.map((w) => w.workflow)).toEqual(['concierge']);

    await ada.page.getByRole('link', { name: 'Members' }).first().click();
    await ada.page.reload();
    await ada.page.getByText('grace@example.com').waitFor();
    expect(ada.problems.all()).toEqual([]);
    expect(grace.problems.all()).toEqual([]);
    await ada.context.close();
    await grace.context.close();
  });

  it('offers a first sign-in through an account of a verified domain membership instead of a personal organization, once the owner turns auto-onboarding on', { timeout: 180_000 }, async () => {
    const ada = await signedIn('ada', '/members');
    await ada.page.getByRole('link', { name: 'Domains' }).click();
    await ada.page.getByLabel('Domain', { exact: true }).fill('example.com');
    await ada.page.getByRole('button', { name: 'Add domain' }).click();
    const card = ada.page.getByRole('article', { name: 'example.com' });
    await card.getByText('Verified', { exact: false }).first().waitFor();
    const toggle = card.getByRole('switch', { name: /Auto-onboarding for example.com/ });
    await expect(toggle.isChecked()).resolves.toBe(false);
    await toggle.check();
    await card.getByText('(on)').waitFor();
    await screenshotBoth(ada.page, 'members-domains', { fullPage: true });
    const org = await firstOrg(ada.token());

    // Hal's first sign-in: no personal organization, an offer instead; Join makes him a member.
    const hal = await signedIn('hal', '/chat');
    const halToken = hal.token;
    await hal.page.getByText(`You are invited to join ${org!.name}`).waitFor();
    expect((await apiAs<OrganizationListAnswer>(halToken(), '/api/orgs')).organizations).toEqual([]);
    await hal.page.getByText('No published workflow you may use has a chat trigger.').waitFor();
    await screenshotBoth(hal.page, 'members-onboarding-notice', { fullPage: true });
    await hal.page.getByRole('link', { name: 'Review' }).click();
    await hal.page.getByRole('heading', { name: 'Your invitations' }).waitFor();
    await hal.page.getByRole('button', { name: `Join ${org!.name}` }).click();
    await hal.page.getByText(`You joined ${org!.name}`).waitFor();
    await screenshotBoth(hal.page, 'members-onboarding-joined', { fullPage: true });
    expect((await apiAs<OrganizationListAnswer>(halToken(), '/api/orgs')).organizations.map((o) => o.name)).toEqual([org!.name]);
    // Hal joined the domain's default group (User): he may chat with the concierge.
    expect((await apiAs<ChatWorkflowList>(halToken(), '/api/chat/workflows')).workflows.map((w) => w.workflow)).toEqual(['concierge']);
    expect(ada.problems.all()).toEqual([]);
    expect(hal.problems.all()).toEqual([]);
    await ada.context.close();
    await hal.context.close();
  });

  it('shows a connection in error with its deployment\'s message, and Retry now tries every deployment again', { timeout: 180_000 }, async () => {
    const ada = await signedIn('ada', '/agents');
    const adaToken = ada.token;
    const org = await firstOrg(adaToken());
    // Two webhook triggers of this agent name connection "inbox": neither can be deployed (a configuration problem).
    await installAgentOverApi(product.base, adaToken(), org!.id, join(repoRoot, 'test/fixtures/agents/deployments'), 'deploys', [
      { identifier: 'desk', protocol: 'agui', auth: 'public' }, { identifier: 'inbox', protocol: 'webhook', auth: 'public' },
    ]);
    type Listed = { reconciliation: { reason: string; status: string; requestedAt: string } | null };
    const deployments = () => apiAs<Listed>(adaToken(), '/api/agents/deploys/environments/main/deployments');
    await ada.page.goto(`${product.base}/agents/deploys/environments/main/connections`);
    const inbox = ada.page.locator('tr', { has: ada.page.getByText('inbox', { exact: true }) });
    await inbox.getByText('Error', { exact: true }).waitFor({ timeout: 60_000 });
    await inbox.getByText('Connection "inbox" is named by 2 triggers', { exact: false }).waitFor();
    await ada.page.locator('tr', { has: ada.page.getByText('desk', { exact: true }) }).getByText('Serving (1)').waitFor({ timeout: 60_000 });
    await screenshotBoth(ada.page, 'connections-error', { fullPage: true });
    const before = (await deployments()).reconciliation!;

    await inbox.getByRole('button', { name: 'Retry now' }).click();
    await inbox.getByText('Retry asked.').waitFor();
    await expect.poll(async () => (await deployments()).reconciliation, { timeout: 60_000 })
      .toMatchObject({ reason: 'retry_now', status: 'done', requestedAt: expect.not.stringMatching(`^${before.requestedAt}$`) });
    // Retrying does not mend a configuration problem: the row still says why, until a publish fixes it.
    await ada.page.reload();
    await inbox.getByText('Connection "inbox" is named by 2 triggers', { exact: false }).waitFor();
    expect(ada.problems.all()).toEqual([]);
    await ada.context.close();
  });
});
