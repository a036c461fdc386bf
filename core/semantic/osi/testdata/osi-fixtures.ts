/// <reference types="vite/client" />
/**
 * Test-only: the OSI example and converter fixture files copied under `testdata/` (provenance in
 * `../schemas/NOTICE.md`), read at build time by the test runner (Vite `import.meta.glob`), no I/O.
 *
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
import type { ModelFile } from '../load-model-file.ts';

function filesOf(glob: Record<string, string>, prefix: string): ModelFile[] {
  return Object.entries(glob)
    .map(([path, text]) => ({ fileName: path.slice(path.indexOf(prefix) + prefix.length), text }))
    .sort((a, b) => a.fileName.localeCompare(b.fileName));
}

/**
 * Schema-valid OSI files (examples and converter fixtures); the key is the upstream ref + path.
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export const validOsiFiles: ModelFile[] = filesOf(
  import.meta.glob('./valid/**/*.yaml', { query: '?raw', import: 'default', eager: true }),
  './valid/',
);

/**
 * OSI files cairn must reject (proposals, a YAML 1.2 indentation error).
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export const invalidOsiFiles: ModelFile[] = filesOf(
  import.meta.glob('./invalid/**/*.yaml', { query: '?raw', import: 'default', eager: true }),
  './invalid/',
);

/**
 * The two TPC-DS examples: 0.2.0.dev0 (main) and 0.1.1 (release-0.1.1).
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export const tpcdsExamples: ModelFile[] = validOsiFiles.filter((f) => f.fileName.endsWith('examples/tpcds_semantic_model.yaml'));
