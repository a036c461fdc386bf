/**
 * Seeds the demo semantic projects on first start: `flights` (BTS on-time data from the vega-datasets
 * package, 3,000,000 rows, with airports reached by origin and by destination) and `tpcds` (the OSI
 * TPC-DS example model with generated data). Uses the `cairn` command, as an operator would.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateTpcdsData } from './demo/generate-tpcds.ts';

/** Where the product runs and where its files are. */
export interface SeedOptions {
  url: string;
  dataDir: string;
  root: string;
  log: (line: string) => void;
}

/** Demo tokens by project slug (kept in `<dataDir>/demo-tokens.json`, mode 0600). */
export type DemoTokens = Record<string, string>;

/** Seeds what is missing and returns the demo tokens. @throws Error naming the failed step */
export async function seedDemo(options: SeedOptions): Promise<DemoTokens> {
  const tokensFile = join(options.dataDir, 'demo-tokens.json');
  const tokens: DemoTokens = existsSync(tokensFile) ? JSON.parse(readFileSync(tokensFile, 'utf8')) : {};
  for (const project of ['flights', 'tpcds']) {
    if (!(await projectExists(options.url, project))) {
      options.log(`seeding demo project ${project} (first start)`);
      const dir = await prepareProjectDir(options, project);
      cairn(options, ['semantic', 'import', dir, '--project', project, '--publish']);
      rmSync(dir, { recursive: true, force: true });
      delete tokens[project];
    }
    if (!tokens[project]) {
      tokens[project] = cairn(options, ['semantic', 'token', 'create', project, '--models', modelOf(project), '--name', 'demo']).trim();
      writeFileSync(tokensFile, JSON.stringify(tokens, null, 2), { mode: 0o600 });
    }
  }
  return tokens;
}

function modelOf(project: string): string {
  return project === 'flights' ? 'flights' : 'tpcds_retail_model';
}

async function projectExists(url: string, slug: string): Promise<boolean> {
  const response = await fetch(new URL(`/api/semantic/projects/${slug}`, url));
  if (response.status === 404) return false;
  if (!response.ok) throw new Error(`checking project ${slug}: ${response.status} ${await response.text()}`);
  return true;
}

async function prepareProjectDir(options: SeedOptions, project: string): Promise<string> {
  const dir = join(options.dataDir, 'demo-import', project);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'models'), { recursive: true });
  mkdirSync(join(dir, 'data'), { recursive: true });
  const demo = join(options.root, 'scripts', 'demo', project, 'models');
  const modelFile = `${modelOf(project)}.yaml`;
  copyFileSync(join(demo, modelFile), join(dir, 'models', modelFile));
  if (project === 'flights') {
    const vega = join(options.root, 'node_modules', 'vega-datasets', 'data');
    copyFileSync(join(vega, 'flights-3m.parquet'), join(dir, 'data', 'flights.parquet'));
    copyFileSync(join(vega, 'airports.csv'), join(dir, 'data', 'airports.csv'));
  } else {
    await generateTpcdsData(join(dir, 'data'));
  }
  return dir;
}

function cairn(options: SeedOptions, args: string[]): string {
  const result = spawnSync(process.execPath, [join(options.root, 'bins', 'cairn', 'main.ts'), '--url', options.url, ...args], { encoding: 'utf8' });
  for (const line of (result.stderr ?? '').split('\n').filter(Boolean)) options.log(line);
  if (result.status !== 0) throw new Error(`cairn ${args.slice(0, 3).join(' ')} failed: ${(result.stderr ?? '').trim().split('\n').pop()}`);
  return result.stdout;
}
