/**
 * The catalog as its readers see it: the facts of every task type, gathered from the type
 * modules (src/lanes/<type>/definition.ts) by the built-in registry. A fact about a task type
 * lives in its own module and nowhere else; this module only reads them.
 */
import { BUILT_IN_REGISTRY } from '../lanes/built-in.js';
import { catalogEntryOf } from '../task-types/registry.js';
import type { CatalogEntry, TaskType } from '../task-types/task-type.js';

export type { BaselineConfidence, CatalogEntry, DependencyClass, OperationalStatus, TaskExecutor } from '../task-types/task-type.js';
export { classificationLabels } from '../task-types/registry.js';

export const TASK_CATALOG: readonly CatalogEntry[] = Object.freeze(BUILT_IN_REGISTRY.all().map((t) => Object.freeze(catalogEntryOf(t))));

const BY_TYPE: ReadonlyMap<string, CatalogEntry> = new Map(TASK_CATALOG.map((e) => [e.type, e]));

export function getCatalogEntry(type: string): CatalogEntry | undefined {
  return BY_TYPE.get(type);
}

/** A built-in type's whole module: schemas, view, skills and model use besides the catalog facts. */
export function getTaskType(type: string): TaskType | undefined {
  return BUILT_IN_REGISTRY.get(type);
}

/** The entries the catalog route lists: every type except the internal-only ones. */
export function publicCatalog(): CatalogEntry[] {
  return TASK_CATALOG.filter((e) => !e.internalOnly);
}
