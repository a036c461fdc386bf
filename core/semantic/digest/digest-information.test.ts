import { describe, expect, test } from 'vitest';
import type { AIContext, SemanticModel } from '../model.ts';
import { loadModelFile } from '../osi/load-model-file.ts';
import { validOsiFiles } from '../osi/testdata/osi-fixtures.ts';
import { allDigestPages } from './digest-pages.ts';
import { digestTestModel } from './digest-test-model.ts';

const normal = (text: string) => text.replace(/\s+/g, ' ').trim();

function contextTexts(context: AIContext | undefined): string[] {
  if (!context) return [];
  const other = Object.entries(context.other ?? {}).flatMap((
    [k, v],
  ) => [k, typeof v === 'string' ? v : JSON.stringify(v)]);
  return [context.instructions ?? '', ...(context.synonyms ?? []), ...(context.examples ?? []), ...other];
}

const wordsOnly = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
const differs = (expression: string, name: string) =>
  expression.toLowerCase().replace(/[\s"`]+/g, '') !== name.toLowerCase();

/** Every piece of information the digest must keep, per model. */
function informationOf(model: SemanticModel): string[] {
  const texts = [model.name, model.description ?? '', ...contextTexts(model.aiContext)];
  for (const d of model.datasets) {
    texts.push(
      d.name,
      d.description ?? '',
      ...contextTexts(d.aiContext),
      ...(d.primaryKey ?? []),
      ...(d.uniqueKeys ?? []).flat(),
    );
    for (const f of d.fields) {
      texts.push(
        f.name,
        f.description ?? '',
        f.datatype ?? '',
        ...contextTexts(f.aiContext),
        ...(f.enums ?? []),
        ...(f.sampleValues ?? []),
      );
      if (f.label && wordsOnly(f.label) !== wordsOnly(f.name)) texts.push(f.label);
      if (differs(f.expression, f.name)) texts.push(f.expression);
    }
  }
  for (const r of model.relationships) {
    texts.push(r.name, r.from, r.to, ...r.fromColumns, ...r.toColumns, ...contextTexts(r.aiContext));
  }
  for (const m of model.metrics) {
    texts.push(m.name, m.expression, m.description ?? '', m.datatype ?? '', ...contextTexts(m.aiContext));
  }
  return [...new Set(texts.map(normal).filter((t) => t !== ''))];
}

const models: [string, SemanticModel][] = [
  ...validOsiFiles.map((f): [string, SemanticModel] => [f.fileName, loadModelFile(f).model!]),
  ['digest-test-model (built in code)', digestTestModel()],
];

describe('the digest keeps every piece of information (union over all pages)', () => {
  test.each(models)('%s', (_name, model) => {
    for (const pageSize of [25, 2]) {
      const union = normal(allDigestPages(model, pageSize).join('\n'));
      const missing = informationOf(model).filter((text) => !union.includes(text));
      expect(missing, `page size ${pageSize}`).toEqual([]);
    }
  });

  test.each(models)('%s: no raw YAML and no vendor extension data in the digest', (_name, model) => {
    const union = allDigestPages(model, 25).join('\n');
    expect(union).not.toMatch(
      new RegExp(
        String.raw`^\s*(- )?(version|semantic_model|datasets|fields|expression|dialects|dialect|vendor_name|` +
          String.raw`data|ai_context|from_columns):`,
        'm',
      ),
    );
    expect(union).not.toMatch(/custom_extensions|vendor_name/);
  });

  test('the checked information covers the fixtures: names, descriptions, synonyms, instructions, expressions', () => {
    const all = models.flatMap(([, m]) => informationOf(m));
    expect(all.length).toBeGreaterThan(1000);
    expect(all).toEqual(
      expect.arrayContaining([
        'POS data',
        'SUM(store_sales.ss_ext_sales_price) / NULLIF(SUM(store.s_number_employees), 0)',
      ]),
    );
  });
});
