import type { TaskTypeRegistry } from './registry.js';

/**
 * The task types of the service this process runs, installed once by its composition root
 * (src/app.ts) before anything reads the catalog: the built-in types plus any the service was
 * composed with. One process runs one service, so one registry per process; until a service is
 * composed (a tool, a test of one module), readers fall back to the built-in types.
 */
let installed: TaskTypeRegistry | null = null;

export function installTaskTypes(registry: TaskTypeRegistry): void {
  installed = registry;
}

export function installedTaskTypes(): TaskTypeRegistry | null {
  return installed;
}
