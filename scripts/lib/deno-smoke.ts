/**
 * Smoke of the runtime-neutral domain under Deno 2 (run by scripts/test as
 * `deno run --allow-read --allow-env scripts/lib/deno-smoke.ts <module>…`; the yaml library reads LOG_TOKENS): loads every domain module it is given,
 * then runs a few pure functions that touch each small library the domain uses (ajv with the OSI JSON
 * Schemas, yaml, ipaddr.js, gpt-tokenizer, TypeBox) and the web globals (btoa, TextEncoder).
 * Prints one line per failure and a closing `[deno] smoke: …` line; exits 1 on any failure.
 *
 * Source: docs/architecture.md § Layout (domain code runs on Deno too).
 */

interface DenoLike {
  args: string[];
  exit(code: number): never;
  version: { deno: string };
}

/** One named check of a pure function; throws when the answer is wrong. */
type Check = [name: string, run: () => void | Promise<void>];

const deno = (globalThis as { Deno?: DenoLike }).Deno;
if (deno === undefined) throw new Error('scripts/lib/deno-smoke.ts runs under Deno: deno run --allow-read scripts/lib/deno-smoke.ts <module>…');

function same(actual: unknown, expected: unknown, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

const checks: Check[] = [
  ['base64url (btoa)', async () => {
    const { base64url } = await import('../../core/semantic/base64url.ts');
    same(base64url(new Uint8Array([251, 255, 0])), '-_8A', 'base64url of fb ff 00');
  }],
  ['OSI schema problems (ajv, JSON imports)', async () => {
    const { schemaProblems } = await import('../../core/semantic/osi/schema-problems.ts');
    const problems = schemaProblems({ semantic_model: 'not a list' }, '0.1.1');
    if (problems.length === 0) throw new Error('an OSI document whose semantic_model is a string passed the 0.1.1 schema');
  }],
  ['trusted proxies and client address (ipaddr.js)', async () => {
    const { clientAddress, parseTrustedProxies } = await import('../../core/auth/client-address.ts');
    const trusted = parseTrustedProxies('10.0.0.0/8');
    same(clientAddress('10.1.2.3', '203.0.113.9', trusted), '203.0.113.9', 'client behind a trusted proxy');
    same(clientAddress('192.0.2.1', '203.0.113.9', trusted), '192.0.2.1', 'client behind an untrusted peer');
  }],
  ['token count (gpt-tokenizer)', async () => {
    const { countTokens } = await import('../../core/semantic/digest/count-tokens.ts');
    const count = countTokens('hello world');
    if (!(count > 0 && count < 5)) throw new Error(`countTokens('hello world') gave ${count}`);
  }],
  ['config document from a YAML file (yaml, TypeBox)', async () => {
    const { resolveConfig } = await import('../../core/config/config-document.ts');
    const resolved = resolveConfig({ env: {}, production: false, fileText: { path: 'config.yaml', text: 'branding:\n  title: Smoke\n' } });
    same(resolved.config.branding.title, 'Smoke', 'branding.title of the inline config');
  }],
];

async function main(runtime: DenoLike): Promise<void> {
  const failures: string[] = [];
  let loaded = 0;
  for (const module of runtime.args) {
    try {
      await import(new URL(`../../${module}`, import.meta.url).href);
      loaded += 1;
    } catch (error) {
      failures.push(`[deno] cannot load ${module}: ${(error as Error).message}`);
    }
  }
  let passed = 0;
  for (const [name, run] of checks) {
    try {
      await run();
      passed += 1;
    } catch (error) {
      failures.push(`[deno] ${name} failed: ${(error as Error).message}`);
    }
  }
  failures.forEach((line) => console.log(line));
  const outcome = failures.length === 0 ? 'passed' : 'FAILED';
  console.log(`[deno] smoke ${outcome} on Deno ${runtime.version.deno}: ${loaded}/${runtime.args.length} domain modules loaded, ${passed}/${checks.length} checks passed`);
  if (runtime.args.length === 0) console.log('[deno] no domain modules were given: nothing was loaded');
  runtime.exit(failures.length === 0 && runtime.args.length > 0 ? 0 : 1);
}

await main(deno);
