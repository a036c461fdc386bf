/**
 * The digest section of scripts/bench-semantic.ts: digest vs YAML tokens (o200k_base) of the demo models
 * and of every valid OSI test model.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { measureDigest } from '../../core/semantic/digest/measure-digest.ts';

/** Prints one line per model file under `root`: YAML tokens, digest tokens, their ratios and the calls needed. */
export function printDigestTokens(root: string): void {
  console.log('\ndigest vs YAML tokens (o200k_base; digest = every page an agent must read to see the whole model)');
  const header = ['YAML', 'digest', 'ratio', 'ratio w/o comments', 'calls'];
  console.log(`${'model file'.padEnd(44)} ${header.map((h, i) => h.padStart([7, 7, 7, 19, 6][i])).join(' ')}`);
  const valid = join(root, 'core/semantic/osi/testdata/valid');
  const files = [
    join(root, 'scripts/demo/flights/models/flights.yaml'),
    join(root, 'scripts/demo/tpcds/models/tpcds_retail_model.yaml'),
    ...readdirSync(valid, { recursive: true, encoding: 'utf8' }).filter((p) => p.endsWith('.yaml')).sort()
      .map((p) => join(valid, p)),
  ];
  for (const path of files) {
    let text: string;
    try { text = readFileSync(path, 'utf8'); } catch { continue; }
    const [m] = measureDigest([{ fileName: path.split('/').pop()!, text }]);
    const name = path.replace(`${root}/`, '').replace('core/semantic/osi/testdata/valid/', 'osi/').slice(-44);
    const cells = [
      String(m.yamlTokens).padStart(7), String(m.digestTokens).padStart(7), `${m.ratio.toFixed(2).padStart(6)}x`,
      `${m.ratioWithoutComments.toFixed(2).padStart(18)}x`, String(m.calls).padStart(6),
    ];
    console.log(`${name.padEnd(44)} ${cells.join(' ')}`);
  }
}
