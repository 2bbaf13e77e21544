import { TASK_CATALOG } from '../../src/runtime/catalog.js';
import { createLaneRegistry, type LaneDefinition, type LaneRegistry } from '../../src/runtime/lanes.js';

/**
 * A lane registry of only `definitions`, for tests that compose part of the runtime: checked
 * like the service's, against the catalog less the in-process types the test does not register
 * (the service itself refuses to start with a handler missing).
 */
export function testLaneRegistry(definitions: readonly LaneDefinition[] = []): LaneRegistry {
  const handled = new Set(definitions.filter((d) => d.handler).map((d) => d.type));
  const catalog = TASK_CATALOG.filter((entry) => entry.executor === 'worker' || handled.has(entry.type));
  return createLaneRegistry(catalog, definitions);
}
