import { describe, expect, it } from 'vitest';
import { modelNamesOf, playgroundHref, readPlaygroundStart } from '../../web/src/pages/semantic/playground/refine.ts';

describe('playground address', () => {
  it('round-trips model, SQL, params and plane', () => {
    const href = playgroundHref('flights', { model: 'flights', sql: 'SELECT $1 AS "a&b"', params: ['x', '2'], plane: 'production' });
    expect(readPlaygroundStart(href.split('?')[1])).toEqual({ model: 'flights', sql: 'SELECT $1 AS "a&b"', params: ['x', '2'], plane: 'production' });
    expect(playgroundHref('a b', {})).toBe('/projects/a%20b/playground');
  });

  it('falls back on unreadable values', () => {
    expect(readPlaygroundStart('?params=not-json&plane=staging')).toEqual({ plane: 'test', model: '', sql: '', params: [] });
    expect(readPlaygroundStart('?params=%5B1%2C%22b%22%5D').params).toEqual(['1', 'b']);
  });

  it('reads model names from a list_semantic_models digest, not from the failed-validation section', () => {
    const digest = '# Semantic models (2)\n- flights: US flights: delays\n- tpcds\nUse get_semantic_model …\n\n## Models that failed validation (not usable until fixed)\n- broken: bad';
    expect(modelNamesOf(digest)).toEqual(['flights', 'tpcds']);
    expect(modelNamesOf('No semantic models are available to this token.')).toEqual([]);
  });
});
