/** The text of core/design/knowledge.generated.ts as the generator makes it now (formatted). */
export function designKnowledgeModule(): string;
/** The worked examples: title and directory. */
export const exampleSources: [string, string][];
