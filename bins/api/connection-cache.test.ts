/**
 * What a connection serves, reused per connection for CONNECTION_CACHE_MS (the AG-UI endpoint's chat trigger): read
 * once a second in a run of calls, read again for a record read again (changed), after the second, and after a
 * read that threw.
 * Source: docs/endpoints.md.
 */
import { describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../core/connection/index.ts';
import { cachedPerConnection, CONNECTION_CACHE_MS } from './connection-cache.ts';

const record = (id: string) => ({ _id: id }) as unknown as ConnectionRecord;

describe('cachedPerConnection', () => {
  it('reads once per connection within CONNECTION_CACHE_MS, and again for a changed record or after it', async () => {
    let now = 0;
    const reads: string[] = [];
    const servedOf = cachedPerConnection(async (c) => {
      reads.push(c._id);
      return c._id === 'gone' ? undefined : { workflow: `w-${c._id}` };
    }, { clock: { now: () => new Date(now) } });
    const [a, b, gone] = [record('a'), record('b'), record('gone')];
    for (let i = 0; i < 5; i += 1) {
      expect(await servedOf(a)).toEqual({ workflow: 'w-a' });
      expect(await servedOf(gone)).toBeUndefined();
    }
    expect(await servedOf(b)).toEqual({ workflow: 'w-b' });
    expect(reads).toEqual(['a', 'gone', 'b']);
    await servedOf(record('a'));
    now += CONNECTION_CACHE_MS;
    await servedOf(b);
    expect(reads).toEqual(['a', 'gone', 'b', 'a', 'b']);
  });

  it('does not remember a read that threw', async () => {
    let fail = true;
    const servedOf = cachedPerConnection(async () => {
      if (fail) throw new Error('store away');
      return 'served';
    }, { clock: { now: () => new Date(0) } });
    const a = record('a');
    await expect(servedOf(a)).rejects.toThrow('store away');
    fail = false;
    expect(await servedOf(a)).toBe('served');
  });
});
