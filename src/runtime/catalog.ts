/**
 * The catalog as its readers see it: the facts of every task type, gathered from the type
 * modules (src/lanes/<type>/definition.ts) into the registry the service installed at start
 * (src/task-types/installed.ts), or the built-in types before one is. A fact about a task type
 * lives in its own module and nowhere else; this module only reads them.
 */
import { BUILT_IN_REGISTRY, taskTypes } from '../lanes/built-in.js';
import { catalogEntryOf } from '../task-types/registry.js';
import type { CatalogEntry, TaskType } from '../task-types/task-type.js';

export type { BaselineConfidence, CatalogEntry, DependencyClass, OperationalStatus, TaskExecutor } from '../task-types/task-type.js';
export { classificationLabels } from '../task-types/registry.js';

/** The built-in types' entries, in catalog order (what a tool without a service knows). */
export const TASK_CATALOG: readonly CatalogEntry[] = Object.freeze(BUILT_IN_REGISTRY.all().map((t) => Object.freeze(catalogEntryOf(t))));

export { taskTypes };

const entries = new WeakMap<TaskType, CatalogEntry>();
const entryOf = (t: TaskType): CatalogEntry => {
  let entry = entries.get(t);
  if (!entry) entries.set(t, (entry = Object.freeze(catalogEntryOf(t))));
  return entry;
};

/** Every type's entry, in catalog order. */
export function taskCatalog(): readonly CatalogEntry[] {
  return taskTypes().all().map(entryOf);
}

export function getCatalogEntry(type: string): CatalogEntry | undefined {
  const t = taskTypes().get(type);
  return t ? entryOf(t) : undefined;
}

/** A type's whole module: schemas, view, skills and model use besides the catalog facts. */
export function getTaskType(type: string): TaskType | undefined {
  return taskTypes().get(type);
}

/** The entries the catalog route lists: every type except the internal-only ones. */
export function publicCatalog(): CatalogEntry[] {
  return taskTypes().publicTypes().map(entryOf);
}
