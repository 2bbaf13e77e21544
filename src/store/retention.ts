import { ProgrammingError } from '../domain/errors.js';
/** The `keep` of an append as a whole number of records; a non-finite value is a caller bug. */
export function retentionCount(keep: number): number {
  if (!Number.isFinite(keep)) throw new ProgrammingError(`keep must be a finite number, got ${keep}`);
  return Math.max(0, Math.floor(keep));
}
