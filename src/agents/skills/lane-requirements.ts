import { BUILT_IN_REGISTRY } from '../../lanes/built-in.js';

/**
 * The skills each tool-gated lane exercises, as its type module declares them (`skills`). The
 * tool-gate preflight refuses a run whose agent is not granted all of them (or when one is not
 * executable).
 */
export const LANE_SKILL_REQUIREMENTS: Readonly<Record<string, readonly string[]>> = Object.freeze(
  Object.fromEntries(BUILT_IN_REGISTRY.all().filter((t) => t.toolGatePreflight).map((t) => [t.type, t.skills])),
);

/** Task types whose runs pass the tool-gate preflight. */
export const TOOL_GATED_LANES: readonly string[] = Object.keys(LANE_SKILL_REQUIREMENTS);
