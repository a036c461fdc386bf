/**
 * Trigger declarations checked per kind: the kind word as key, cron expressions and time zones, and the
 * wording of schema problems (unions of words, object forms, front matter).
 * Source: docs/agent-format.md § Triggers; spec/platform-service.md § Trigger declarations.
 */
import { describe, expect, it } from 'vitest';
import { cronProblem, isTimeZone, splitFrontMatter } from './index.ts';
import { multitaskOf, multitaskStrategies } from './multitask.ts';
import { checkStateTriggers } from './triggers.ts';

const check = (triggers: Record<string, unknown>) => checkStateTriggers('w', 'start', triggers);

describe('trigger declarations', () => {
  it('takes the kind from a key that is a kind word, even with no value', () => {
    const { problems, declarations } = check({
      chat: null,
      manual: {},
      nightly: { type: 'schedule', cron: '@daily', timezone: 'Europe/Paris' },
    });
    expect(problems).toEqual([]);
    expect(declarations.map((d) => [d.id, d.type])).toEqual([['chat', 'chat'], ['manual', 'manual'], [
      'nightly',
      'schedule',
    ]]);
  });

  it('asks for a type when the key is not a kind word, and names the kinds', () => {
    expect(check({ ask: { description: 'x' } }).problems).toEqual([
      {
        key: '/states/start/triggers/ask',
        message: 'trigger "ask" has no type; add type: one of chat, mcp, webhook, callback, schedule, polling, ' +
          'completion, manual (or name the trigger after its kind, e.g. chat:)',
      },
    ]);
  });

  it('refuses keys of another kind, a bad connection slug and a missing required key', () => {
    const { problems } = check({
      hook: { type: 'webhook', connection: 'Ops Hook', examples: ['x'] },
      poll: { type: 'polling', tool: 'list' },
    });
    expect(problems.map((p) => p.key)).toEqual([
      '/states/start/triggers/hook/examples',
      '/states/start/triggers/hook/connection',
      '/states/start/triggers/poll/collection',
    ]);
    expect(problems[0].message).toBe(
      'unknown key "examples"; allowed keys here: type, connection, session (remove it or fix its spelling)',
    );
    expect(problems[1].message).toMatch(/"Ops Hook" is not a slug/);
    expect(problems[2].message).toBe('missing required key "collection"; add it');
  });

  it('lets a manual trigger take a file, refuses one in mcp returns', () => {
    expect(check({ manual: { requires: [{ name: 'report', type: 'file' }] } }).problems).toEqual([]);
    const { problems } = check({ mcp: { returns: [{ name: 'report', type: 'file' }] } });
    expect(problems.map((p) => p.key)).toEqual(['/states/start/triggers/mcp/returns/0/type']);
    expect(problems[0].message).toMatch(/cannot return a file/);
  });

  it('reports a type word that is not allowed with the allowed words', () => {
    const { problems } = check({ mcp: { requires: [{ name: 'n', type: 'text' }] } });
    expect(problems).toEqual([{
      key: '/states/start/triggers/mcp/requires/0/type',
      message: '"text" is not allowed here; use one of: string, number, integer, boolean, object, array, file',
    }]);
  });
});

describe('multitask on a chat trigger (docs/decisions.md D27 § 1)', () => {
  it.each(multitaskStrategies)('accepts multitask: %s and reads it back', (strategy) => {
    const { problems, declarations } = check({ chat: { multitask: strategy } });
    expect(problems).toEqual([]);
    expect(multitaskOf(declarations[0].fields)).toBe(strategy);
  });

  it('lists the four strategies and defaults to enqueue when the key is absent', () => {
    expect(multitaskStrategies).toEqual(['reject', 'enqueue', 'interrupt', 'rollback']);
    const { problems, declarations } = check({ chat: null, talk: { type: 'chat', session: 'user' } });
    expect(problems).toEqual([]);
    expect(declarations.map((d) => multitaskOf(d.fields))).toEqual(['enqueue', 'enqueue']);
  });

  it('locates a value that is not a strategy and names the allowed ones', () => {
    const { problems } = check({ talk: { type: 'chat', multitask: 'queue' } });
    expect(problems).toEqual([{
      key: '/states/start/triggers/talk/multitask',
      message: '"queue" is not allowed here; use one of: reject, enqueue, interrupt, rollback',
    }]);
  });

  it('refuses multitask on another kind with its own words, not as an unknown key', () => {
    const { problems } = check({
      webhook: { multitask: 'enqueue' },
      nightly: { type: 'schedule', cron: '@daily', multitask: 'x' },
    });
    expect(problems).toEqual([['webhook', 'webhook'], ['nightly', 'schedule']].map(([id, kind]) => ({
      key: `/states/start/triggers/${id}/multitask`,
      atKey: true,
      message: 'only chat triggers take multitask (what a second message does while a turn runs: reject, enqueue, ' +
        `interrupt, rollback); remove it from this ${kind} trigger`,
    })));
  });
});

describe('cron and time zones', () => {
  it('accepts five fields and nicknames, refuses seconds, out-of-range values and @reboot', () => {
    expect(cronProblem('0 9 * * MON-FRI')).toBeUndefined();
    expect(cronProblem('@weekly')).toBeUndefined();
    expect(cronProblem('0 0 9 * * *')).toMatch(/requires exactly 5 parts/);
    expect(cronProblem('0 24 * * *')).toBe('Invalid value for hour: 24');
    expect(cronProblem('@reboot')).toMatch(/@reboot is not supported/);
  });

  it('knows IANA zones', () => {
    expect(isTimeZone('America/New_York')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});

describe('front matter', () => {
  it('splits the block between the first two --- lines from the body', () => {
    expect(splitFrontMatter('---\r\nname: a\r\n---\r\nBody\n')).toEqual({ yaml: 'name: a\n', body: 'Body\n' });
    expect(splitFrontMatter('# no front matter')).toBeUndefined();
    expect(splitFrontMatter('---\nname: a\n')).toBeUndefined();
  });
});
