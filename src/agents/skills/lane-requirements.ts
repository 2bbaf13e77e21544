import { taskTypes } from '../../lanes/built-in.js';

/**
 * The skills each tool-gated lane exercises, as its type module declares them (`skills`). The
 * tool-gate preflight refuses a run whose agent is not granted all of them (or when one is not
 * executable).
 */
export function laneSkillRequirements(): Readonly<Record<string, readonly string[]>> {
  return Object.fromEntries(
    taskTypes()
      .all()
      .filter((t) => t.toolGatePreflight)
      .map((t) => [t.type, t.skills]),
  );
}

/** The skills a tool-gated lane exercises, or undefined for a lane without the preflight. */
export function laneSkills(type: string): readonly string[] | undefined {
  const t = taskTypes().get(type);
  return t?.toolGatePreflight ? t.skills : undefined;
}

/** The built-in types' requirements (what a tool without a service knows). */
export const LANE_SKILL_REQUIREMENTS: Readonly<Record<string, readonly string[]>> = Object.freeze(laneSkillRequirements());

/** Built-in task types whose runs pass the tool-gate preflight. */
export const TOOL_GATED_LANES: readonly string[] = Object.keys(LANE_SKILL_REQUIREMENTS);
