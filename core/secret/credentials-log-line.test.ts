import { describe, expect, it } from 'vitest';
import { type CredentialChange, credentialsLogLine } from './credentials-log-line.ts';

describe('credentialsLogLine', () => {
  it.each(['created', 'updated', 'deleted', 'moved'] as const)(
    'names the change %s, identifier, environment and member on one [credentials] line',
    (change) => {
      const line = credentialsLogLine({
        change,
        credentialId: 'cred_8f2k',
        environment: 'production',
        member: 'ada@example.com',
      });
      expect(line).toBe(`[credentials] ${change} credential cred_8f2k in environment production by ada@example.com`);
    },
  );

  it('never shows a secret value passed anywhere on the change', () => {
    const secret = 'sk-live-4f9a8b7c6d5e';
    const change = {
      change: 'updated',
      credentialId: 'cred_1',
      environment: 'staging',
      member: 'm_1',
      value: secret,
      fields: { apiKey: secret },
      secret,
    } as CredentialChange;
    const line = credentialsLogLine(change);
    expect(line).not.toContain(secret);
    expect(line).not.toContain('apiKey');
    expect(line).toBe('[credentials] updated credential cred_1 in environment staging by m_1');
  });

  it('stays exactly one line when a name holds line breaks or control characters', () => {
    const line = credentialsLogLine({
      change: 'created',
      credentialId: 'c\n[credentials] deleted credential x',
      environment: 'prod\r\u2028',
      member: '',
    });
    expect(line.split(/[\n\r\u2028\u2029]/)).toHaveLength(1);
    expect(line.startsWith('[credentials] created credential c\\u000a[credentials] deleted')).toBe(true);
    expect(line.endsWith('by -')).toBe(true);
  });
});
