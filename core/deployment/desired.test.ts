/**
 * The checks of desired deployments: which triggers deploy; a connection absent from the environment; a protocol
 * mismatch; two chat or webhook triggers naming one connection (both fail, naming the connection, the workflows
 * and the trigger ids); an mcp trigger the endpoint cannot list; an invalid cron or time zone; a completion
 * trigger naming a missing workflow; a polling or callback trigger whose collection no service offers.
 * Source: spec/platform-service.md § Trigger deployment, § Trigger declarations, § Errors.
 */
import { describe, expect, it } from 'vitest';
import { type DeploymentTrigger, deploys, desiredDeployments, type DesiredInput } from './index.ts';

const trigger = (
  workflow: string,
  id: string,
  type: string,
  fields: Record<string, unknown> = {},
): DeploymentTrigger => ({ id, type, workflow, state: 'start', fields });
const input = (triggers: DeploymentTrigger[], more: Partial<DesiredInput> = {}): DesiredInput => ({
  environment: 'main',
  workflows: [...new Set(triggers.map((t) => t.workflow))],
  triggers,
  connections: [{ identifier: 'desk', protocol: 'agui' }, { identifier: 'tools', protocol: 'mcp' }, {
    identifier: 'inbox',
    protocol: 'webhook',
  }],
  offeredCollections: ['semantic'],
  mcpRefusals: [],
  ...more,
});
const problems = (i: DesiredInput) =>
  Object.fromEntries(desiredDeployments(i).map((d) => [`${d.workflow}/${d.trigger}`, d.problem]));

describe('desired deployments', () => {
  it('deploy every kind but manual; chat, mcp and webhook only when they name a connection', () => {
    expect(deploys(trigger('a', 'm', 'manual'))).toBe(false);
    expect(deploys(trigger('a', 'c', 'chat'))).toBe(false);
    expect(deploys(trigger('a', 'c', 'chat', { connection: 'desk' }))).toBe(true);
    expect(deploys(trigger('a', 'w', 'webhook'))).toBe(false);
    for (const type of ['callback', 'schedule', 'polling', 'completion']) {
      expect(deploys(trigger('a', 't', type))).toBe(true);
    }
  });

  it('serve when every check passes, carrying the connection they name', () => {
    const triggers = [
      trigger('chat', 'talk', 'chat', { connection: 'desk' }),
      trigger('tool', 'call', 'mcp', { connection: 'tools' }),
      trigger('hook', 'in', 'webhook', { connection: 'inbox' }),
      trigger('tick', 'daily', 'schedule', { cron: '0 9 * * 1-5', timezone: 'Europe/Paris' }),
      trigger('after', 'done', 'completion', { workflow: 'chat' }),
      trigger('poll', 'rows', 'polling', { collection: 'semantic', tool: 'q' }),
      trigger('back', 'ev', 'callback', { collection: 'semantic', event: 'x' }),
      trigger('chat', 'by-hand', 'manual'),
    ];
    const desired = desiredDeployments(input(triggers));
    expect(desired.map((d) => [d.trigger, d.connection, d.problem])).toEqual([
      ['talk', 'desk', null],
      ['call', 'tools', null],
      ['in', 'inbox', null],
      ['daily', null, null],
      ['done', null, null],
      ['rows', null, null],
      ['ev', null, null],
    ]);
  });

  it('fail on a connection the environment lacks, and on one of another protocol, saying what to do', () => {
    const out = problems(
      input([
        trigger('chat', 'talk', 'chat', { connection: 'gone' }),
        trigger('hook', 'in', 'webhook', { connection: 'tools' }),
      ]),
    );
    expect(out['chat/talk']).toBe(
      'The chat trigger "talk" of workflow "chat" names connection "gone", which environment "main" does not have; ' +
        'register it (cairn connection create --id gone --protocol agui …) or name an existing connection of ' +
        'protocol agui and publish again.',
    );
    expect(out['hook/in']).toBe(
      'The webhook trigger "in" of workflow "hook" names connection "tools", whose protocol is mcp; a webhook ' +
        'trigger needs a connection of protocol webhook. Name one (or register one) and publish again.',
    );
  });

  it(
    'fail both triggers naming one webhook (or AG-UI) connection, naming ' +
      'the connection, workflows and trigger ids',
    () => {
      const out = problems(input([
        trigger('orders', 'order-hook', 'webhook', { connection: 'inbox' }),
        trigger('refunds', 'refund-hook', 'webhook', { connection: 'inbox' }),
        trigger('a', 'chat-a', 'chat', { connection: 'desk' }),
        trigger('b', 'chat-b', 'chat', { connection: 'desk' }),
        trigger('t1', 'tool-1', 'mcp', { connection: 'tools' }),
        trigger('t2', 'tool-2', 'mcp', { connection: 'tools' }),
      ]));
      const expected =
        'Connection "inbox" is named by 2 triggers: workflow "orders" (trigger "order-hook") and workflow "refunds" ' +
        '(trigger "refund-hook"). An AG-UI or webhook connection serves one trigger, so none of them is deployed; ' +
        'keep the connection on one trigger (register another connection for the others) and publish again.';
      expect(out['orders/order-hook']).toBe(expected);
      expect(out['refunds/refund-hook']).toBe(expected);
      expect(out['a/chat-a']).toContain(
        'Connection "desk" is named by 2 triggers: workflow "a" (trigger "chat-a") and workflow "b" (trigger "chat-b")',
      );
      expect(out['b/chat-b']).toBe(out['a/chat-a']);
      // One MCP connection serves one tool per workflow: no conflict.
      expect([out['t1/tool-1'], out['t2/tool-2']]).toEqual([null, null]);
    },
  );

  it("fail an mcp trigger the endpoint cannot list, with the endpoint's own message", () => {
    const message =
      'The mcp trigger "call" of workflow "tool" declares the file entries doc; an MCP call accepts no files, so ' +
      'the tool is not listed. Change their type and publish again.';
    const out = problems(
      input([trigger('tool', 'call', 'mcp', { connection: 'tools' })], {
        mcpRefusals: [{ workflow: 'tool', trigger: 'call', message }],
      }),
    );
    expect(out['tool/call']).toBe(message);
  });

  it('fail a schedule whose cron or time zone cannot run', () => {
    const out = problems(input([
      trigger('a', 'bad-cron', 'schedule', { cron: '61 * * * *' }),
      trigger('b', 'bad-zone', 'schedule', { cron: '@daily', timezone: 'Mars/Olympus' }),
      trigger('c', 'no-cron', 'schedule', {}),
    ]));
    expect(out['a/bad-cron']).toMatch(
      new RegExp(
        String.raw`^The schedule trigger "bad-cron" of workflow "a" has the cron expression "61 \* ` +
          String.raw`\* \* \*", which cannot run \(.+\); write five fields`,
      ),
    );
    expect(out['b/bad-zone']).toBe(
      'The schedule trigger "bad-zone" of workflow "b" names the time zone "Mars/Olympus", which is not known; use ' +
        'an IANA name such as "Europe/Paris" or "UTC" and publish again.',
    );
    expect(out['c/no-cron']).toMatch(/declares no cron expression/);
  });

  it(
    'fail a completion trigger naming a workflow the build lacks, and a polling or callback trigger whose ' +
      'collection no service offers',
    () => {
      const out = problems(input([
        trigger('after', 'done', 'completion', { workflow: 'ghost' }),
        trigger('poll', 'rows', 'polling', { collection: 'crm', tool: 'q' }),
        trigger('back', 'ev', 'callback', { collection: 'crm', event: 'x' }),
      ]));
      expect(out['after/done']).toBe(
        'The completion trigger "done" of workflow "after" names workflow "ghost", which the published build lacks; ' +
          'name one of "after", "poll", "back" and publish again.',
      );
      expect(out['poll/rows']).toBe(
        'The polling trigger "rows" of workflow "poll" names collection "crm", which no configured service offers ' +
          '(the configured services offer "semantic"); add a service offering it to the config\'s services and ' +
          'restart, or name an offered collection and publish again.',
      );
      expect(
        problems(
          input([trigger('back', 'ev', 'callback', { collection: 'crm', event: 'x' })], { offeredCollections: [] }),
        )['back/ev'],
      ).toContain('(no service is configured)');
      expect(out['back/ev']).toContain('The callback trigger "ev" of workflow "back" names collection "crm"');
    },
  );
});
