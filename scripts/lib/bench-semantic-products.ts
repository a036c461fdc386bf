/**
 * The products scripts/bench-semantic.ts measures side by side: this checkout's, and the baseline revision's
 * (extracted from git with scripts/bench-endpoints-baseline.ts `extractRevision`, started from its own sources with its
 * own test helpers, seeded with its own demo seeding and `cairn` command), each with its MCP callers of the `flights`
 * and `orders` models: through the front proxy (gzip as the client asks), without gzip, straight to semantic-mcp.
 */
import { join } from 'node:path';
import { extractRevision } from '../bench-endpoints-baseline.ts';
import { freePort } from '../../test/helpers/ports.ts';
import { mcpCaller, type BenchQuery, type Caller } from './bench-semantic-queries.ts';

/**
 * The baseline revision of the query path's targets (docs/decisions.md D18, fixed costs): main when the round
 * started (`execute_query` of `SELECT 1` 5.0 times a proxied health check, small queries 2.1 to 2.4 times raw
 * DuckDB).
 */
export const SEMANTIC_BASELINE_REVISION = 'a50ed37aa14b309961930e23967ce9ff077e024b';

/** Calls of one model: through the front proxy (gzip as the client asks), without gzip, straight to semantic-mcp. */
export interface ModelCallers { proxy: Caller; identity: Caller; direct: Caller }

/** One started, seeded product. */
export interface BenchProduct {
  /** `now`, or `baseline <12 hex>`. */
  name: string;
  /** The front proxy's origin. */
  url: string;
  /** The callers of each benchmark model. */
  callers: Record<BenchQuery['model'], ModelCallers>;
  /** A proxied `GET /api/health` (the per-call yardstick). */
  health(): Promise<void>;
  /** Stops the product (and removes an extracted revision). */
  stop(): Promise<void>;
}

/** What the helpers of one source tree give: its product start, demo seeding and `orders` project. */
interface Sources {
  startProduct(env: Record<string, string>): Promise<{ url: string; dataDir: string; stop(): Promise<void> }>;
  seedDemo(options: object): Promise<Record<string, string>>;
  seedOrdersProject(url: string, root: string, workDir: string): Promise<string>;
}

/** Imports the helpers of the source tree at `root`. */
async function sourcesAt(root: string): Promise<Sources> {
  const [product, seed, setup] = await Promise.all([
    import(join(root, 'test/helpers/product.ts')),
    import(join(root, 'scripts/seed-demo.ts')),
    import(join(root, 'scripts/lib/bench-semantic-setup.ts')),
  ]);
  return { startProduct: product.startProduct, seedDemo: seed.seedDemo, seedOrdersProject: setup.seedOrdersProject };
}

/**
 * Starts and seeds the product of the source tree at `root` (the `flights` demo project and the `orders` project),
 * with a rate limit no benchmark reaches.
 * @param name - how the figures name it
 * @param workDir - a directory of this run for the `orders` import
 */
export async function startBenchProduct(root: string, name: string, workDir: string): Promise<BenchProduct> {
  const sources = await sourcesAt(root);
  const semanticPort = await freePort();
  const env = { MCP_RATE_LIMIT_MAX: '1000000', SEMANTIC_MCP_PORT: String(semanticPort) };
  const product = await sources.startProduct(env);
  try {
    const seed = { url: product.url, dataDir: product.dataDir, root, log: () => {}, waitUntilUp: async () => {} };
    const tokens = await sources.seedDemo(seed);
    tokens.orders = await sources.seedOrdersProject(product.url, root, join(workDir, name.replace(/\W+/g, '-')));
    const callers = (model: BenchQuery['model']): ModelCallers => ({
      proxy: mcpCaller(`${product.url}/mcp/${model}/mcp`, tokens[model]),
      identity: mcpCaller(`${product.url}/mcp/${model}/mcp`, tokens[model], { 'accept-encoding': 'identity' }),
      direct: mcpCaller(`http://127.0.0.1:${semanticPort}/mcp/${model}/mcp`, tokens[model]),
    });
    const health = async () => { await (await fetch(`${product.url}/api/health`)).text(); };
    const modelCallers = { flights: callers('flights'), orders: callers('orders') };
    return { name, url: product.url, callers: modelCallers, health, stop: product.stop };
  } catch (error) {
    await product.stop();
    throw error;
  }
}

/**
 * Starts the baseline revision's product from its own sources (extracted into a temporary directory, removed when
 * it stops), or says why it could not.
 */
export async function startBaselineProduct(
  root: string, revision: string, workDir: string,
): Promise<BenchProduct | string> {
  let extracted: ReturnType<typeof extractRevision> | undefined;
  try {
    extracted = extractRevision(root, revision);
    const product = await startBenchProduct(extracted.dir, `baseline ${revision.slice(0, 7)}`, workDir);
    const remove = extracted.remove;
    return { ...product, stop: async () => { await product.stop(); remove(); } };
  } catch (error) {
    extracted?.remove();
    return error instanceof Error ? error.message : String(error);
  }
}
