/**
 * Session key expressions: templates with {{ path }} placeholders over a firing (dotted paths, indexes, quoted
 * names), what a missing value does, how values print, and the validator's check of a trigger's `session`.
 * Source: docs/agent-format.md § Triggers (`session`: session key expression over the firing).
 */
import { describe, expect, it } from 'vitest';
import { parseSessionKey, sessionKeyOf, sessionKeyProblem } from './session-key-expression.ts';
import { checkStateTriggers } from './triggers.ts';

const firing = {
  id: 'intake',
  type: 'webhook',
  deliveryId: 'd-1',
  method: 'POST',
  contentType: 'application/json',
  query: { customer: 'acme', tags: ['a', 'b'] },
  body: {
    ticket: { id: 'T-42', number: 7, urgent: true, owner: null, title: '' },
    items: [{ sku: 'X1' }, { sku: 'X2' }],
    'x-ref': 'r-9',
    'odd key.x': 'odd',
    order_id: 1001,
  },
};

describe('session key expressions', () => {
  it('read dotted paths, array indexes written [n] or .n, and quoted names', () => {
    expect(sessionKeyOf('{{ body.ticket.id }}', firing)).toBe('T-42');
    expect(sessionKeyOf('{{query.customer}}', firing)).toBe('acme');
    expect(sessionKeyOf('{{ body.items[1].sku }}', firing)).toBe('X2');
    expect(sessionKeyOf('{{ body.items.0.sku }}', firing)).toBe('X1');
    expect(sessionKeyOf('{{ body.x-ref }}', firing)).toBe('r-9');
    expect(sessionKeyOf('{{ body["odd key.x"] }}', firing)).toBe('odd');
    expect(sessionKeyOf("{{ body['odd key.x'] }}", firing)).toBe('odd');
  });

  it('join literal text and several placeholders, and print numbers, booleans, lists and mappings', () => {
    expect(sessionKeyOf('order-{{ body.order_id }}', firing)).toBe('order-1001');
    expect(sessionKeyOf('{{ query.customer }}/{{ body.ticket.number }}/{{ body.ticket.urgent }}', firing)).toBe(
      'acme/7/true',
    );
    expect(sessionKeyOf('{{ query.tags }}', firing)).toBe('["a","b"]');
    expect(sessionKeyOf('{{ body.items[0] }}', firing)).toBe('{"sku":"X1"}');
    expect(sessionKeyOf('support', firing)).toBe('support');
  });

  it(
    'give no key (a new session) when the expression is absent, a ' + 'placeholder finds nothing, or the key is blank',
    () => {
      expect(sessionKeyOf(undefined, firing)).toBeUndefined();
      expect(sessionKeyOf('{{ body.missing }}', firing)).toBeUndefined();
      expect(sessionKeyOf('order-{{ body.ticket.owner }}', firing)).toBeUndefined();
      expect(sessionKeyOf('{{ body.ticket.title }}', firing)).toBeUndefined();
      expect(sessionKeyOf('{{ body.items[5].sku }}', firing)).toBeUndefined();
      expect(sessionKeyOf('{{ body.items.sku }}', firing)).toBeUndefined();
      expect(sessionKeyOf('{{ body.ticket.id.deeper }}', firing)).toBeUndefined();
      expect(sessionKeyOf('{{ body.toString }}', firing)).toBeUndefined();
      expect(sessionKeyOf('   ', firing)).toBeUndefined();
      expect(sessionKeyOf('{{ body.ticket.id }}', { body: 'plain text' })).toBeUndefined();
    },
  );

  it('refuse what cannot be read, saying what is wrong and what to write', () => {
    const bad = [
      '{{ body.id',
      'body.id }}',
      '{{ }}',
      '{{ body..id }}',
      '{{ body.id | lower }}',
      '{{ body[x] }}',
      '{{ body id }}',
      '{{ {{ body }} }}',
    ];
    for (const expression of bad) {
      expect(() => parseSessionKey(expression), expression).toThrow(
        expect.objectContaining({ code: 'invalid_session_key_expression' }),
      );
    }
    expect(sessionKeyProblem('{{ body.id')).toMatch(
      /a "\{\{" is not closed by "\}\}".*e\.g\. "ticket-\{\{ body\.ticket\.id \}\}"/,
    );
    expect(sessionKeyProblem('{{ body.id | lower }}')).toMatch(/holds a filter; a placeholder is only a path/);
    expect(sessionKeyProblem('{{ body..id }}')).toMatch(/is not a property name/);
    expect(sessionKeyProblem('ticket-{{ body.ticket.id }}')).toBeUndefined();
    expect(() => sessionKeyOf('{{ body.id', firing)).toThrow(/cannot be read/);
  });

  it('are checked by the trigger validator on chat, webhook and callback triggers', () => {
    const { problems } = checkStateTriggers('w', 'start', {
      hook: { type: 'webhook', connection: 'github', session: 'ticket-{{ body.ticket.id }}' },
      chat: { session: '{{ body.id' },
      cb: { type: 'callback', collection: 'crm', event: 'updated', session: '{{ }}' },
    });
    expect(problems.map((p) => p.key)).toEqual([
      '/states/start/triggers/chat/session',
      '/states/start/triggers/cb/session',
    ]);
    expect(problems[0].message).toMatch(
      /^the session key expression "\{\{ body\.id" cannot be read: a "\{\{" is not closed/,
    );
  });
});
