import { describe, expect, test } from 'vitest';
import type { SemanticModel } from '../model.ts';
import { loadModelFile } from '../osi/load-model-file.ts';
import { tpcdsExamples, validOsiFiles } from '../osi/testdata/osi-fixtures.ts';
import { countTokens } from './count-tokens.ts';
import { digestPagesToReadAll } from './digest-pages.ts';
import { measureDigest, withoutCommentLines } from './measure-digest.ts';

/** Tokens of the bare information (every string the digest must keep, one per line, no structure at all). */
function informationFloor(model: SemanticModel): number {
  const texts: string[] = [
    model.name,
    model.description ?? '',
    model.aiContext?.instructions ?? '',
    ...(model.aiContext?.synonyms ?? []),
  ];
  for (const d of model.datasets) {
    texts.push(
      d.name,
      d.description ?? '',
      d.aiContext?.instructions ?? '',
      ...(d.aiContext?.synonyms ?? []),
      ...(d.primaryKey ?? []),
    );
    for (const f of d.fields) {
      texts.push(
        f.name,
        f.datatype ?? '',
        f.expression === f.name ? '' : f.expression,
        f.description ?? '',
        ...(f.aiContext?.synonyms ?? []),
      );
    }
  }
  for (const r of model.relationships) {
    texts.push(r.name, r.from, r.to, ...r.fromColumns, ...r.toColumns, ...(r.aiContext?.synonyms ?? []));
  }
  for (const m of model.metrics) {
    texts.push(m.name, m.expression, m.description ?? '', ...(m.aiContext?.synonyms ?? []));
  }
  return countTokens(texts.filter((t) => t !== '').join('\n'));
}

describe('countTokens', () => {
  test('counts o200k_base tokens', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
  });

  test('withoutCommentLines drops comment-only and blank lines', () => {
    expect(withoutCommentLines('# licence\n\nversion: "0.1.1"  # kept\n  # note\nsemantic_model: []')).toBe(
      'version: "0.1.1"  # kept\nsemantic_model: []',
    );
  });
});

describe('measureDigest', () => {
  const models = validOsiFiles.map((file) => loadModelFile(file).model!);

  test(
    'each figure is what it claims: tokens of the file, of the file without comments, and of every page an ' +
      'agent reads',
    () => {
      for (const pageSize of [25, 5]) {
        measureDigest(validOsiFiles, { pageSize }).forEach((m, i) => {
          const pages = digestPagesToReadAll(models[i], pageSize);
          expect(m.model).toBe(models[i].name);
          expect(m.yamlTokens).toBe(countTokens(validOsiFiles[i].text));
          expect(m.yamlTokensWithoutComments).toBe(countTokens(withoutCommentLines(validOsiFiles[i].text)));
          expect(m.calls).toBe(pages.length);
          expect(m.digestTokens).toBe(pages.reduce((sum, page) => sum + countTokens(page), 0));
          expect(m.ratio).toBeCloseTo(m.yamlTokens / m.digestTokens, 10);
          expect(m.ratioWithoutComments).toBeCloseTo(m.yamlTokensWithoutComments / m.digestTokens, 10);
        });
      }
    },
  );

  test('the pages counted hold every dataset, field, relationship and metric name of the model', () => {
    measureDigest(validOsiFiles).forEach((m, i) => {
      const text = digestPagesToReadAll(models[i], 25).join('\n');
      const names = [
        ...models[i].datasets.flatMap((d) => [d.name, ...d.fields.map((f) => f.name)]),
        ...models[i].relationships.map((r) => r.name),
        ...models[i].metrics.map((x) => x.name),
      ];
      expect(names.filter((name) => !text.includes(name)), `${m.model}: names missing from the counted pages`).toEqual(
        [],
      );
    });
  });

  test('the digest costs fewer tokens than the YAML without comments, and no fewer than the bare information', () => {
    const rows = measureDigest(validOsiFiles).map((m, i) => ({
      file: validOsiFiles[i].fileName.replace(/^.*?\/(?:converters\/)?/, '').slice(0, 60),
      yaml: m.yamlTokens,
      yamlNoComments: m.yamlTokensWithoutComments,
      digest: m.digestTokens,
      calls: m.calls,
      ratio: Number(m.ratio.toFixed(2)),
      ratioNoComments: Number(m.ratioWithoutComments.toFixed(2)),
      bareInfo: informationFloor(models[i]),
    }));
    console.table(rows); // the measurement itself, for the record
    for (const row of rows) {
      expect(row.digest, row.file).toBeLessThan(row.yamlNoComments);
      expect(row.digest, row.file).toBeGreaterThanOrEqual(row.bareInfo);
    }
  });

  test('smaller pages mean more calls and more tokens for the same TPC-DS model', () => {
    const [big, small] = [25, 5].map((pageSize) => measureDigest(tpcdsExamples, { pageSize }));
    expect(big).toHaveLength(2);
    big.forEach((m, i) => {
      expect(small[i].model).toBe(m.model);
      expect(small[i].calls).toBeGreaterThan(m.calls);
      expect(small[i].digestTokens).toBeGreaterThan(m.digestTokens);
      expect(small[i].yamlTokens).toBe(m.yamlTokens);
    });
  });

  test('a file that does not load is an invalid_model error, not a silent skip', () => {
    expect(() => measureDigest([{ fileName: 'bad.yaml', text: 'version: 1' }])).toThrow(/bad\.yaml does not load/);
  });
});
