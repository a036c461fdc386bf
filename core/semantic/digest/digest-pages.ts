/**
 * The sets of digest pages that cover a whole model, as an agent would fetch them: used to measure the
 * digest honestly and to check that no information is lost.
 *
 * Source: spec/semantic-query-service.md § What the service does (1), § Tools.
 */
import type { SemanticModel } from '../model.ts';
import { pageOf } from './markdown.ts';
import { type DatasetRequest, datasetsPerCall, renderDatasets } from './render-datasets.ts';
import { renderModelOverview } from './render-model-overview.ts';
import { renderModelSection } from './render-model-section.ts';
import type { SectionScope } from './section-rows.ts';

/**
 * Items per page when the project sets none (mirrors the project default).
 * Source: spec/semantic-query-service.md § Tools (page).
 */
export const defaultDigestPageSize = 25;

const scopes: SectionScope[] = ['datasets', 'relationships', 'metrics'];

function sectionPages(model: SemanticModel, pageSize: number, fromPage: number): string[] {
  return scopes.flatMap((scope) => {
    const items: unknown[] = model[scope];
    const { pageCount } = pageOf(items, 1, pageSize);
    const pages: string[] = [];
    for (let page = fromPage; page <= pageCount && items.length > 0; page += 1) {
      pages.push(renderModelSection(model, { scope, page, pageSize }));
    }
    return pages;
  });
}

function datasetPages(model: SemanticModel, pageSize: number): string[] {
  const pageCounts = model.datasets.map((d) => pageOf(d.fields, 1, pageSize).pageCount);
  const calls: string[] = [];
  for (let page = 1; page <= Math.max(0, ...pageCounts); page += 1) {
    const requests: DatasetRequest[] = model.datasets.filter((_, i) => pageCounts[i] >= page).map((d) => ({
      name: d.name,
      page,
    }));
    for (let i = 0; i < requests.length; i += datasetsPerCall.max) {
      calls.push(renderDatasets(model, requests.slice(i, i + datasetsPerCall.max), { pageSize }));
    }
  }
  return calls;
}

/**
 * The fewest tool outputs that show everything: the overview (first page of each section), the remaining
 * section pages, and get_datasets calls of up to 10 datasets for every field page.
 * @returns markdown of each call, in fetch order
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model, get_datasets).
 */
export function digestPagesToReadAll(model: SemanticModel, pageSize: number): string[] {
  return [
    renderModelOverview(model, { pageSize }),
    ...sectionPages(model, pageSize, 2),
    ...datasetPages(model, pageSize),
  ];
}

/**
 * Every digest page of a model: the overview, every page of every section (page 1 included) and every
 * field page of every dataset.
 * Source: spec/semantic-query-service.md § Tools.
 */
export function allDigestPages(model: SemanticModel, pageSize: number): string[] {
  return [
    renderModelOverview(model, { pageSize }),
    ...sectionPages(model, pageSize, 1),
    ...datasetPages(model, pageSize),
  ];
}
