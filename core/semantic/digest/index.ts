/**
 * Public edge of the markdown digest (what the MCP tools return instead of YAML).
 * Token counting (`count-tokens.ts`, `measure-digest.ts`) is deliberately not re-exported: it pulls in the
 * tokenizer's encoding tables, which only the benchmark needs; import those files directly.
 *
 * Source: spec/semantic-query-service.md § What the service does (1), § Tools.
 */
export { renderModelList } from './render-model-list.ts';
export { renderModelOverview } from './render-model-overview.ts';
export { renderModelSection, type SectionOptions } from './render-model-section.ts';
export { type DatasetRequest, datasetsPerCall, findDataset, renderDatasets } from './render-datasets.ts';
export { allDigestPages, defaultDigestPageSize, digestPagesToReadAll } from './digest-pages.ts';
export type { SectionScope } from './section-rows.ts';
