/**
 * Loading all model files of a project: every file yields its model or its problems, never silence.
 *
 * Source: spec/semantic-query-service.md § What the service does (1), § Resources and their fields.
 */
import type { ModelProblem, SemanticModel } from '../model.ts';
import { loadModelFile, type ModelFile } from './load-model-file.ts';

export type { ModelProblem } from '../model.ts';
export type { ModelFile } from './load-model-file.ts';

/**
 * Loads every model file of a project. Nothing is dropped silently: each file either yields its model or
 * its problems; a model name used by an earlier file is a problem of the later file.
 * @returns valid models in input order, and every problem of every file
 * Source: spec/semantic-query-service.md § What the service does (1), § Resources and their fields.
 */
export function loadModels(files: ModelFile[]): { models: SemanticModel[]; problems: ModelProblem[] } {
  const models: SemanticModel[] = [];
  const problems: ModelProblem[] = [];
  const owner = new Map<string, string>();
  for (const file of files) {
    const loaded = loadModelFile(file);
    problems.push(...loaded.problems);
    if (!loaded.model) continue;
    const earlier = owner.get(loaded.model.name.toLowerCase());
    if (earlier !== undefined) {
      problems.push({
        file: file.fileName,
        model: loaded.model.name,
        reason: `model name "${loaded.model.name}" is already used by ${earlier}; rename one file`,
      });
      continue;
    }
    owner.set(loaded.model.name.toLowerCase(), file.fileName);
    models.push(loaded.model);
  }
  return { models, problems };
}
