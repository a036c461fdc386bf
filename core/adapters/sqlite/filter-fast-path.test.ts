/**
 * compileFilter's fast path for plain string equalities agrees with mingo (MongoDB's semantics) on
 * every document shape: equal, different, an array holding the value or not, nested arrays,
 * numbers and null, missing fields, several fields at once.
 */
import { Query } from 'mingo';
import { describe, expect, it } from 'vitest';
import { compileFilter, type PlainDocument } from './document-semantics.ts';

const docs: PlainDocument[] = [
  { _id: 'a', slug: 'x', tags: ['x', 'y'], n: 1 },
  { _id: 'b', slug: 'y', tags: [['x']], n: '1' },
  { _id: 'c', slug: ['x'], tags: [], n: null },
  { _id: 'd', tags: 'x' },
  { _id: 'e', slug: 'x', tags: ['z'], n: ['1', 2] },
];

describe('plain string equality filters', () => {
  it.each([
    { slug: 'x' },
    { tags: 'x' },
    { n: '1' },
    { _id: 'c' },
    { slug: 'x', tags: 'z' },
    { slug: 'x', tags: 'x' },
    { missing: 'x' },
    {},
  ])('%j matches what mingo matches', (filter) => {
    const fast = compileFilter(filter);
    const mongo = new Query(filter);
    expect(docs.filter(fast).map((d) => d._id)).toEqual(docs.filter((d) => mongo.test(d)).map((d) => d._id));
  });
});
