import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import type { ObjectStore } from '../ports/object-store.ts';

/** The world the semantic use cases need, passed in (no module-level connections). */
export interface SemanticDeps {
  docs: DocumentStore;
  objects: ObjectStore;
  clock: Clock;
  ids: Ids;
}
