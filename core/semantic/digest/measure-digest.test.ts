import { describe, expect, test } from 'vitest';
import type { SemanticModel } from '../model.ts';
import { loadModelFile } from '../osi/load-model-file.ts';
import { tpcdsExamples, validOsiFiles } from '../osi/testdata/osi-fixtures.ts';
import { countTokens } from './count-tokens.ts';
import { measureDigest, withoutCommentLines } from './measure-digest.ts';

/** Tokens of the bare information (every string the digest must keep, one per line, no structure at all). */
function informationFloor(model: SemanticModel): number {
  const texts: string[] = [model.name, model.description ?? '', model.aiContext?.instructions ?? '', ...(model.aiContext?.synonyms ?? [])];
  for (const d of model.datasets) {
    texts.push(d.name, d.description ?? '', d.aiContext?.instructions ?? '', ...(d.aiContext?.synonyms ?? []), ...(d.primaryKey ?? []));
    for (const f of d.fields) {
      texts.push(f.name, f.datatype ?? '', f.expression === f.name ? '' : f.expression, f.description ?? '', ...(f.aiContext?.synonyms ?? []));
    }
  }
  for (const r of model.relationships) texts.push(r.name, r.from, r.to, ...r.fromColumns, ...r.toColumns, ...(r.aiContext?.synonyms ?? []));
  for (const m of model.metrics) texts.push(m.name, m.expression, m.description ?? '', ...(m.aiContext?.synonyms ?? []));
  return countTokens(texts.filter((t) => t !== '').join('\n'));
}

describe('countTokens', () => {
  test('counts o200k_base tokens', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
  });

  test('withoutCommentLines drops comment-only and blank lines', () => {
    expect(withoutCommentLines('# licence\n\nversion: "0.1.1"  # kept\n  # note\nsemantic_model: []')).toBe('version: "0.1.1"  # kept\nsemantic_model: []');
  });
});

describe('measureDigest (printed, not asserted: the figures are a measurement)', () => {
  test('YAML tokens versus the digest an agent reads to see everything, per example and fixture', () => {
    const rows = measureDigest(validOsiFiles).map((m, i) => {
      const floor = informationFloor(loadModelFile(validOsiFiles[i]).model!);
      return {
        file: validOsiFiles[i].fileName.replace(/^.*?\/(?:converters\/)?/, '').slice(0, 60),
        yaml: m.yamlTokens,
        yamlNoComments: m.yamlTokensWithoutComments,
        digest: m.digestTokens,
        calls: m.calls,
        ratio: Number(m.ratio.toFixed(2)),
        ratioNoComments: Number(m.ratioWithoutComments.toFixed(2)),
        bareInfo: floor,
        bestPossibleNoComments: Number((m.yamlTokensWithoutComments / floor).toFixed(2)),
      };
    });
    console.table(rows);
    for (const row of rows) expect(row.digest).toBeGreaterThan(0);
  });

  test('the TPC-DS examples measure with one call per page size', () => {
    for (const pageSize of [25, 5]) {
      const rows = measureDigest(tpcdsExamples, { pageSize });
      console.log(`TPC-DS, page size ${pageSize}:`, rows.map((r) => `${r.model} ${r.yamlTokens}→${r.digestTokens} tokens (${r.ratio.toFixed(2)}×, ${r.calls} calls)`).join('; '));
      expect(rows).toHaveLength(2);
    }
  });

  test('a file that does not load is an invalid_model error, not a silent skip', () => {
    expect(() => measureDigest([{ fileName: 'bad.yaml', text: 'version: 1' }])).toThrow(/bad\.yaml does not load/);
  });
});
