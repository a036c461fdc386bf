/**
 * The per-user ceiling (PLATFORM_USER_RATE_PER_MINUTE) through the front proxy of the real product: with the
 * ceiling at 5, nine session starts in a row by one member give five 201s, then 429 with Retry-After; a
 * reply of the same member is refused the same way, while reading is not counted.
 *
 * Source: ../shared/spec/platform-service.md § Deployment settings (PLATFORM_USER_RATE_PER_MINUTE), § Errors,
 * § Limits; issue 17 § 6.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';

let product: RunningProduct;

beforeAll(async () => {
  product = await startProduct({ PLATFORM_USER_RATE_PER_MINUTE: '5' });
  const imported = runCairn(product.url, ['agent', 'import', join(repoRoot, 'scripts/demo/agent'), '--agent', 'flights-analyst', '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
}, 180_000);

afterAll(async () => { await product?.stop(); });

const post = (path: string, body: unknown) => fetch(`${product.url}${path}`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
});

describe('PLATFORM_USER_RATE_PER_MINUTE through the proxy', () => {
  it('answers 429 with Retry-After from the sixth session start of a minute, and counts replies too', async () => {
    const answers: { status: number; retryAfter: string | null; body: { session?: { id: string }; error?: { code: string; message: string } } }[] = [];
    for (let i = 0; i < 9; i += 1) {
      const response = await post('/api/sessions', { agent: 'flights-analyst', environment: 'main', workflow: 'flights-analyst', message: `question ${i}` });
      answers.push({ status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() as never });
    }
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 429, 429, 429, 429]);
    for (const refused of answers.slice(5)) {
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
      expect(refused.body.error?.code).toBe('rate_limited');
      expect(refused.body.error?.message).toMatch(/try again in \d+ s/);
    }
    const reply = await post(`/api/sessions/${answers[0].body.session!.id}/reply`, { message: 'more' });
    expect(reply.status).toBe(429);
    expect(reply.headers.get('retry-after')).not.toBeNull();
    // Reading starts no work: not counted, not refused.
    expect((await fetch(`${product.url}/api/sessions/${answers[0].body.session!.id}`)).status).toBe(200);
  }, 60_000);
});
