/**
 * Writes the TPC-DS demo data: `node scripts/demo/generate-tpcds-cli.ts <outDir> [--scale N]`
 * (also `bun scripts/demo/generate-tpcds-cli.ts …`). Prints each file with its row count.
 * Exit status 2 on bad arguments, 1 on failure.
 */
import { basename } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../../core/ports/sql-text.ts';
import { generateTpcdsData } from './generate-tpcds.ts';

const USAGE = 'usage: generate-tpcds-cli <outDir> [--scale N]   (scale 1 ≈ 100,000 store_sales rows)';

function parseArgs(argv: string[]): { outDir: string; scale: number } | undefined {
  let outDir: string | undefined;
  let scale = 1;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--scale') scale = Number(argv[++i]);
    else if (arg.startsWith('--scale=')) scale = Number(arg.slice('--scale='.length));
    else if (arg.startsWith('-') || outDir !== undefined) return undefined;
    else outDir = arg;
  }
  if (outDir === undefined || !Number.isFinite(scale) || scale <= 0) return undefined;
  return { outDir, scale };
}

async function rowCount(file: string): Promise<number> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(`SELECT count(*) FROM read_parquet(${quoteLiteral(file)})`);
    return Number(reader.getRows()[0][0]);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (!args) {
    console.error(USAGE);
    return 2;
  }
  const started = performance.now();
  const { files } = await generateTpcdsData(args.outDir, { scale: args.scale });
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  for (const file of files) console.log(`${basename(file, '.parquet').padEnd(12)} ${String(await rowCount(file)).padStart(9)}  ${file}`);
  console.log(`generated ${files.length} files at scale ${args.scale} in ${seconds} s`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
