/**
 * Public edge of OSI model loading: YAML files in, validated {@link SemanticModel}s and problems out.
 *
 * Source: spec/semantic-query-service.md § What the service does (1), § Resources and their fields.
 */
export { loadModelFile, maxProblemsPerFile, type ModelFile, modelNameOf } from './load-model-file.ts';
export { loadModels } from './load-models.ts';
export { datasetsWithoutViewQuery, formatModelProblem, type LoadedModel, type ModelProblem } from '../model.ts';
export { viewQueryVendors } from './extensions.ts';
