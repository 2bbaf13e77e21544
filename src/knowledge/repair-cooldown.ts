/**
 * The cooldown of a repaired doc set: after a drift-repair is admitted for a doc set, the same
 * set is not repaired again until `docRepairCooldownMs` has passed. These pure functions read
 * and set the cooldowns kept in the repair-loop state (repair-state.ts), keyed by doc set.
 */

/** The cooldowns still running at `now` (ended ones are dropped when the state is written). */
export function liveCooldowns(cooldowns: Record<string, string>, now: Date): Record<string, string> {
  return Object.fromEntries(Object.entries(cooldowns).filter(([, until]) => new Date(until).getTime() > now.getTime()));
}

/** The end of `docSet`'s cooldown when it is still running at `now`, else null. */
export function cooldownOf(cooldowns: Record<string, string>, docSet: string, now: Date): string | null {
  const until = cooldowns[docSet];
  return until && new Date(until).getTime() > now.getTime() ? until : null;
}

/** `cooldowns` with `docSet` cooling down for `cooldownMs` from `now`. */
export function withCooldown(cooldowns: Record<string, string>, docSet: string, now: Date, cooldownMs: number): Record<string, string> {
  return { ...cooldowns, [docSet]: new Date(now.getTime() + cooldownMs).toISOString() };
}

/** The latest end of a cooldown still running at `now`, or null when none is. */
export function latestCooldown(cooldowns: Record<string, string>, now: Date): string | null {
  return (
    Object.values(cooldowns)
      .filter((until) => new Date(until).getTime() > now.getTime())
      .sort()
      .pop() ?? null
  );
}
