/**
 * Freezes a plain JSON value in place, all the way down. Stored records are frozen once when
 * they enter a store's memory, so reads can hand them out without copying: a caller that tries
 * to change one gets a TypeError instead of silently changing stored state.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  return Object.freeze(value);
}
