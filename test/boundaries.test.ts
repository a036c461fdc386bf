/**
 * Import rules of ../shared/ARCHITECTURE.md § Layout, checked by scanning every source file,
 * plus a circular-import check over relative imports.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const pureLibraries = new Set(['@sinclair/typebox', '@sinclair/typebox/value', 'yaml', 'ajv', 'ajv/dist/2020', 'ajv/dist/2020.js', 'ipaddr.js', 'gpt-tokenizer', 'gpt-tokenizer/encoding/o200k_base', 'mingo']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/g), ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g), ...text.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)];
  return specs.map((m) => m[1]);
}

/** `core/<domain>/…` → domain name, or the first segment under core/. */
function coreArea(file: string): string | undefined {
  const rel = relative(root, file).split('/');
  return rel[0] === 'core' ? rel[1] : undefined;
}

const files = ['core', 'bins', 'web'].flatMap((d) => sourceFiles(join(root, d)));
const isTest = (f: string) => /\.test\.ts$/.test(f);

describe('import rules (ARCHITECTURE.md § Layout)', () => {
  it('domain modules import only their own domain, core/ports and small pure libraries; no node:, bun:, process.env or Date.now()', () => {
    const violations: string[] = [];
    for (const file of files.filter((f) => !isTest(f))) {
      const area = coreArea(file);
      if (!area || ['ports', 'adapters', 'testing'].includes(area)) continue;
      const text = readFileSync(file, 'utf8');
      if (/process\.env/.test(text)) violations.push(`${relative(root, file)}: reads process.env`);
      if (/Date\.now\(\)/.test(text)) violations.push(`${relative(root, file)}: calls Date.now()`);
      for (const spec of importsOf(file)) {
        if (spec.startsWith('.')) {
          const target = coreArea(resolve(dirname(file), spec));
          if (target !== area && target !== 'ports') violations.push(`${relative(root, file)}: imports ${spec}`);
        } else if (!pureLibraries.has(spec)) {
          violations.push(`${relative(root, file)}: imports ${spec}`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it('adapters never import bins or domain use cases of other domains than config; bins never import other bins; web imports no adapters or bins', () => {
    const violations: string[] = [];
    for (const file of files) {
      const rel = relative(root, file);
      for (const spec of importsOf(file).filter((s) => s.startsWith('.'))) {
        const target = relative(root, resolve(dirname(file), spec));
        if (rel.startsWith('core/') && target.startsWith('bins/')) violations.push(`${rel}: imports ${target}`);
        if (rel.startsWith('bins/') && target.startsWith('bins/') && target.split('/')[1] !== rel.split('/')[1]) violations.push(`${rel}: imports ${target}`);
        if (rel.startsWith('web/') && (target.startsWith('core/adapters') || target.startsWith('bins/'))) violations.push(`${rel}: imports ${target}`);
        if (rel.startsWith('bins/worker/') && /core\/adapters\/(mongo|sqlite|s3|fs-objects|redis|secrets|stores)/.test(target)) violations.push(`${rel}: a worker imports store adapter ${target}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('only bins/*/main.ts reads process.env', () => {
    const readers = files.filter((f) => !isTest(f) && /process\.env/.test(readFileSync(f, 'utf8'))).map((f) => relative(root, f));
    expect(readers.filter((f) => !/^bins\/[^/]+\/main\.ts$/.test(f))).toEqual([]);
  });

  it('has no circular imports', () => {
    const graph = new Map<string, string[]>();
    for (const file of files) {
      graph.set(file, importsOf(file).filter((s) => s.startsWith('.')).map((s) => resolve(dirname(file), s)));
    }
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (node: string, path: string[]) => {
      if (state.get(node) === 'done') return;
      if (state.get(node) === 'visiting') { cycles.push([...path.slice(path.indexOf(node)), node].map((p) => relative(root, p)).join(' → ')); return; }
      state.set(node, 'visiting');
      for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
      state.set(node, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
