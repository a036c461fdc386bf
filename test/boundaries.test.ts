/**
 * Import rules of docs/architecture.md § Import rules, checked by parsing every source file (imports and
 * host-global uses come from the TypeScript parser, so comments and strings never count), plus a
 * circular-import check over relative imports. The domain's type-check without Node types or the DOM
 * library is `tsconfig.core.json`, run by scripts/test; its Deno smoke is scripts/lib/deno-smoke.ts.
 * The last describe keeps docs/architecture.md true to the tree (§ Keeping this page true).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { platformRelease } from '../core/boot/platform-release.ts';
import { hostGlobalUses, importEdges, wideFunctions } from './helpers/source-scan.ts';
// @ts-expect-error: a plain ES module of the repository's scripts, without types
import { sizeReport } from '../scripts/lib/size-report.mjs';

const root = resolve(import.meta.dirname, '..');
const pureLibraries = new Set([
  '@sinclair/typebox', '@sinclair/typebox/value', 'yaml', 'ajv', 'ajv/dist/2020', 'ajv/dist/2020.js', 'ipaddr.js',
  'gpt-tokenizer', 'gpt-tokenizer/encoding/o200k_base', 'mingo', 'mingo/core', 'mingo/query', 'mingo/updater',
  'mingo/operators/query', 'croner', '@ag-ui/core', '@opentelemetry/api',
]);
/**
 * The other domains each domain may import (docs/architecture.md § Import rules, the domain order): the endpoints
 * and triggers build on sessions, sessions on hosted agents. A domain not named here imports no other domain.
 */
const domainUses: Record<string, string[]> = {
  session: ['agent'],
  connection: ['session', 'agent', 'org'],
  trigger: ['session', 'connection', 'agent'],
  evaluation: ['session', 'agent', 'model'],
  design: ['agent', 'session', 'connection'],
  skill: ['agent'],
  collection: ['org', 'secret'],
};
/** Layers of core/ that are not domains. */
const layers = ['ports', 'adapters', 'testing', 'boot'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `core/<area>/…` → area (a domain name, or ports, adapters, testing, boot). */
function coreArea(file: string): string | undefined {
  const rel = relative(root, file).split('/');
  return rel[0] === 'core' ? rel[1] : undefined;
}

const isDomain = (area: string | undefined): area is string => area !== undefined && !layers.includes(area);
const files = ['core', 'bins', 'web'].flatMap((d) => sourceFiles(join(root, d)));
const isTest = (f: string) => /\.test\.ts$/.test(f);
const production = files.filter((f) => !isTest(f));
const relativeEdges = (file: string) => importEdges(file).filter((e) => e.spec.startsWith('.')).map((e) => ({ ...e, target: resolve(dirname(file), e.spec) }));

/** Violations of what a runtime-neutral module may import: `allowed(area)` says which core areas it may reach. */
function neutralImportViolations(file: string, allowed: (area: string | undefined, target: string) => boolean, libraries: Set<string>): string[] {
  const rel = relative(root, file);
  return importEdges(file).flatMap(({ spec }) => {
    if (!spec.startsWith('.')) return libraries.has(spec) ? [] : [`${rel}: imports ${spec}`];
    const target = resolve(dirname(file), spec);
    return allowed(coreArea(target), target) ? [] : [`${rel}: imports ${relative(root, target)}`];
  });
}

/** True when an adapter module a fake reuses is itself pure: only relative imports and pure libraries. */
function isPureAdapterModule(target: string): boolean {
  return importEdges(target).every((e) => e.spec.startsWith('.') ? coreArea(resolve(dirname(target), e.spec)) === 'adapters' || coreArea(resolve(dirname(target), e.spec)) === 'ports' : pureLibraries.has(e.spec));
}

describe('the source scanner', () => {
  it('finds host globals and clock calls in code, not in comments, strings or member names', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cairn-scan-')), 'probe.ts');
    writeFileSync(file, [
      '// process.env and Date.now() in a comment', "const s = 'Buffer process Deno';", 'const o = { process: 1, Bun: 2 }; o.process;',
      'const when = new Date(0);', 'const a = Date.now();', 'const b = new Date();', 'const c = process.env.X;', 'const d: Buffer | undefined = undefined;',
      "const e = require('x');", 'const f = Deno.args;', "import type { Lease } from '../ports/lease.ts';", "import { x } from '../config/y.ts';",
    ].join('\n'));
    expect(hostGlobalUses(file)).toEqual(['line 5: calls Date.now()', 'line 6: calls new Date()', 'line 7: uses process', 'line 8: uses Buffer', 'line 9: uses require', 'line 10: uses Deno']);
    expect(importEdges(file)).toEqual([{ spec: '../ports/lease.ts', typeOnly: true }, { spec: '../config/y.ts', typeOnly: false }]);
  });
});

describe('import rules (docs/architecture.md § Import rules)', () => {
  it('domain modules import only their own domain, the domains below it, core/ports and small pure libraries', () => {
    const violations = production.filter((f) => isDomain(coreArea(f))).flatMap((file) => {
      const area = coreArea(file)!;
      const below = domainUses[area] ?? [];
      const allowed = (target: string | undefined) => target === area || target === 'ports' || target === 'telemetry' || below.includes(target!);
      return neutralImportViolations(file, allowed, pureLibraries);
    });
    expect(violations).toEqual([]);
  });

  it('the domain order has no cycle (a domain never reaches one that reaches it)', () => {
    const reaches = (from: string, seen: string[] = []): string[] => (domainUses[from] ?? []).flatMap((to) =>
      seen.includes(to) ? [to] : [to, ...reaches(to, [...seen, to])]);
    const cyclic = Object.keys(domainUses).filter((domain) => reaches(domain).includes(domain));
    expect(cyclic).toEqual([]);
    const named = Object.entries(domainUses).flatMap(([domain, uses]) => [domain, ...uses]);
    expect(named.filter((domain) => !existsSync(join(root, 'core', domain)))).toEqual([]);
  });

  it('core/ports imports only core/ports; core/testing imports only ports, its own folder, pure adapter helpers, vitest and pure libraries', () => {
    const ports = production.filter((f) => coreArea(f) === 'ports').flatMap((file) => neutralImportViolations(file, (target) => target === 'ports', pureLibraries));
    const testingLibraries = new Set([...pureLibraries, 'vitest']);
    const testing = production.filter((f) => coreArea(f) === 'testing').flatMap((file) =>
      neutralImportViolations(file, (area, target) => area === 'ports' || area === 'testing' || (area === 'adapters' && isPureAdapterModule(target)), testingLibraries));
    expect([...ports, ...testing]).toEqual([]);
  });

  it('domain, ports and testing code use no Buffer, process, Bun, Deno, require, Date.now() or new Date() (the Clock port gives time)', () => {
    const neutral = production.filter((f) => { const area = coreArea(f); return isDomain(area) || area === 'ports' || area === 'testing'; });
    const violations = neutral.flatMap((file) => hostGlobalUses(file).map((use) => `${relative(root, file)} ${use}`));
    expect(violations).toEqual([]);
  });

  it('adapters never import bins, core/boot or domain use cases (a type-only import of a domain model or settings type is fine; core/telemetry is not a use case)', () => {
    const violations: string[] = [];
    for (const file of production.filter((f) => coreArea(f) === 'adapters')) {
      const rel = relative(root, file);
      for (const edge of relativeEdges(file)) {
        const target = relative(root, edge.target);
        const area = coreArea(edge.target);
        if (target.startsWith('bins/') || area === 'boot') violations.push(`${rel}: imports ${target}`);
        else if (isDomain(area) && area !== 'telemetry' && !edge.typeOnly) violations.push(`${rel}: imports values from domain module ${target} (only \`import type\` may cross; wiring belongs in core/boot or a bin)`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('only bins (and tests) import core/boot; core/boot imports no bins', () => {
    const violations: string[] = [];
    for (const file of files) {
      const rel = relative(root, file);
      for (const { target } of relativeEdges(file)) {
        const into = relative(root, target);
        if (coreArea(target) === 'boot' && !rel.startsWith('bins/') && !rel.startsWith('core/boot/') && !isTest(file)) violations.push(`${rel}: imports ${into}`);
        if (rel.startsWith('core/boot/') && into.startsWith('bins/')) violations.push(`${rel}: imports ${into}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('core never imports bins; bins never import other bins; web imports no adapters, boot or bins; a worker imports no store adapter', () => {
    const violations: string[] = [];
    for (const file of files) {
      const rel = relative(root, file);
      for (const { target: abs } of relativeEdges(file)) {
        const target = relative(root, abs);
        if (rel.startsWith('core/') && target.startsWith('bins/')) violations.push(`${rel}: imports ${target}`);
        const shared = target.startsWith('bins/telemetry/');
        if (rel.startsWith('bins/') && target.startsWith('bins/') && !shared && target.split('/')[1] !== rel.split('/')[1]) violations.push(`${rel}: imports ${target}`);
        if (rel.startsWith('web/') && (target.startsWith('core/adapters') || target.startsWith('core/boot') || target.startsWith('bins/'))) violations.push(`${rel}: imports ${target}`);
        if (rel.startsWith('bins/worker/') && /core\/(adapters\/(mongo|sqlite|s3|fs-objects|redis|secrets|stores)|boot)\//.test(target)) violations.push(`${rel}: a worker imports store adapter ${target}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('only bins/*/main.ts reads process.env', () => {
    const readers = production.filter((f) => /process\.env/.test(readFileSync(f, 'utf8'))).map((f) => relative(root, f));
    expect(readers.filter((f) => !/^bins\/[^/]+\/main\.ts$/.test(f))).toEqual([]);
  });

  it('has no circular imports', () => {
    const graph = new Map<string, string[]>();
    for (const file of files) graph.set(file, relativeEdges(file).map((e) => e.target));
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

/** docs/architecture.md as text; its whitespace collapsed where names wrap across lines. */
const architecture = () => readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
const flat = (text: string) => text.replace(/\s+/g, ' ');

/** The `## <title>` section of a markdown text, up to the next `## ` heading; empty when it has none. */
function section(text: string, title: string): string {
  const start = text.indexOf(`\n## ${title}\n`);
  if (start < 0) return '';
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** Folders under `dir` (relative to the root) down to `depth` levels; none below node_modules or a testdata folder. */
function folders(dir: string, depth = Infinity): string[] {
  if (depth < 1) return [];
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'node_modules')
    .flatMap((e) => {
      const path = `${dir}/${e.name}`;
      return [path, ...(e.name === 'testdata' ? [] : folders(path, depth - 1))];
    });
}

/** Repository paths a text names: words starting with a top-level folder, not part of a longer path or word. */
function namedPaths(text: string): string[] {
  const paths = /(?<![\w./-])((?:core|bins|web|scripts|test|proxy|docs|types)\/[\w./<>*@-]*)/g;
  return [...text.matchAll(paths)].map((m) => m[1].replace(/[./]+$/, ''));
}

describe('docs/architecture.md (its § Keeping this page true)', () => {
  it('names every folder of core/ and bins/, and every folder directly under web/src/, scripts/ and test/', () => {
    const named = new Set(namedPaths(architecture()));
    const shallow = ['web/src', 'scripts', 'test'].flatMap((d) => folders(d, 1));
    const all = [...folders('core'), ...folders('bins'), ...shallow];
    expect(all.filter((f) => !named.has(f))).toEqual([]);
  });

  it('names no path that does not exist (patterns with <…> or * aside)', () => {
    const missing = namedPaths(architecture()).filter((p) => !/[<>*]/.test(p) && !existsSync(join(root, p)));
    expect([...new Set(missing)]).toEqual([]);
  });

  it('names every file of core/ports in its ports table', () => {
    const ports = section(architecture(), 'Ports and adapters');
    const files = readdirSync(join(root, 'core', 'ports')).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => !ports.includes(`\`core/ports/${f}\``))).toEqual([]);
  });

  it('names every BullMQ queue of the code and every collection of the release', () => {
    const text = section(architecture(), 'Queues and collections');
    const queueConstant = /export const \w+_QUEUE = '([^']+)'/g;
    const queues = production.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(queueConstant)].map((m) => m[1]));
    const collections = Object.keys(platformRelease().collections);
    expect(queues).toContain('turns');
    expect(collections).toContain('sessions');
    expect([...queues, ...collections].filter((name) => !text.includes(`\`${name}\``))).toEqual([]);
  });

  it('cites every test of the import rules by name, and the README links to it', () => {
    const source = readFileSync(join(root, 'test', 'boundaries.test.ts'), 'utf8');
    const start = source.indexOf("describe('import rules");
    const block = source.slice(start, source.indexOf("describe('docs/architecture.md", start));
    const names = [...block.matchAll(/^ {2}it\('((?:[^'\\]|\\.)*)'/gm)].map((m) => m[1].replace(/\\'/g, "'"));
    expect(names.length).toBeGreaterThan(5);
    const rules = flat(section(architecture(), 'Import rules'));
    expect(names.filter((name) => !rules.includes(name))).toEqual([]);
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain('(docs/architecture.md)');
    expect(readme).not.toContain('../shared/');
  });

  it('is what comments cite, with the spec and docs/decisions.md: no issue number, no path outside the project', () => {
    const tracked = [...files, ...['scripts', 'test'].flatMap((d) => sourceFiles(join(root, d)))];
    const citing = tracked.filter((f) => /\b[Ii]ssues? \d+\b|\.\.\/shared\/(spec|ARCHITECTURE|AGENT-FORMAT)/
      .test(readFileSync(f, 'utf8')));
    expect(tracked.length).toBeGreaterThan(500);
    expect(citing.map((f) => relative(root, f))).toEqual([]);
  });
});

/**
 * Functions whose parameter list something outside them fixes (a port, a library callback), so they keep more
 * than four parameters (docs/architecture.md § Conventions): file, name, and why. None today.
 */
const wideExemptions: { file: string; name: string; reason: string }[] = [];

describe('conventions (docs/architecture.md § Conventions)', () => {
  it('keeps production files within 300 lines and functions within 60 (scripts/lib/size-report.mjs; generated aside)', () => {
    const report = sizeReport(root) as { files: [number, string][]; functions: [number, string][] };
    const { files: longFiles, functions } = report;
    expect(longFiles.map(([lines, file]) => `${file} (${lines} lines)`)).toEqual([]);
    expect(functions.map(([lines, where]) => `${where} (${lines} lines)`)).toEqual([]);
  });

  it('keeps every line of core/ within 120 characters (scripts/format formats core/; test data aside)', () => {
    const coreFiles = files.filter((f) => relative(root, f).startsWith('core/') && !f.includes('/testdata/'));
    const long = coreFiles.flatMap((f) => readFileSync(f, 'utf8').split('\n')
      .flatMap((line, i) => (line.length > 120 ? [`${relative(root, f)}:${i + 1} (${line.length})`] : [])));
    expect(coreFiles.length).toBeGreaterThan(400);
    expect(long).toEqual([]);
  });

  it('the parameter scan counts functions, methods and arrow functions, not type signatures', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cairn-scan-')), 'probe.ts');
    writeFileSync(file, [
      'function five(a: 1, b: 2, c: 3, d: 4, e: 5) {}', 'function four(a: 1, b: 2, c: 3, d: 4) {}',
      'const arrow = (a: 1, b: 2, c: 3, d: 4, e: 5) => a;', 'class K { method(a: 1, b: 2, c: 3, d: 4, e: 5) {} }',
      'interface I { sig(a: 1, b: 2, c: 3, d: 4, e: 5): void }', 'type F = (a: 1, b: 2, c: 3, d: 4, e: 5) => void;',
      'const o = { prop: function (a: 1, b: 2, c: 3, d: 4, e: 5) {} };',
      'class C { constructor(a: 1, b: 2, c: 3, d: 4, e: 5) {} }',
    ].join('\n'));
    expect(wideFunctions(file, 4)).toEqual([
      { name: 'five', line: 1, parameters: 5 }, { name: 'arrow', line: 3, parameters: 5 },
      { name: 'method', line: 4, parameters: 5 }, { name: 'prop', line: 7, parameters: 5 },
      { name: 'constructor', line: 8, parameters: 5 },
    ]);
  });

  it('every function, method and arrow function of core/ and bins/ takes at most four parameters (deps and three; '
    + 'more go into one options object), the listed exemptions aside', () => {
    const scanned = production.filter((f) => /^(core|bins)\//.test(relative(root, f)));
    expect(scanned.length).toBeGreaterThan(300);
    const wide = scanned.flatMap((f) => wideFunctions(f, 4).map((w) => ({ file: relative(root, f), ...w })));
    const exempt = (w: { file: string; name: string }) =>
      wideExemptions.some((e) => e.file === w.file && e.name === w.name);
    expect(wide.filter((w) => !exempt(w)).map((w) => `${w.file}:${w.line} ${w.name} (${w.parameters})`)).toEqual([]);
    const stale = wideExemptions.filter((e) => !wide.some((w) => w.file === e.file && w.name === e.name));
    expect(stale).toEqual([]);
  });
});
