/**
 * The doc set a drift-repair covers and how it is named: the sorted pending paths (at most the
 * drift-repair payload's bound), their key (the first 16 hex of the sha256 of the sorted paths)
 * and the repair's run id, stable for one doc set within one cooldown window, so that admission
 * suppresses a second repair of the same set centrally, whichever process or instance asks.
 */

import { createHash } from 'node:crypto';
import { SERVICE_RUN_ID_PREFIXES } from '../domain/service-run-ids.js';

/** At most this many paths go to one repair (the drift-repair payload's bound). */
const MAX_REPAIR_PATHS = 500;

/** Identity of a doc set: the sha256 of its sorted paths (first 16 hex). */
export function docSetKey(paths: string[]): string {
  return createHash('sha256').update([...paths].sort().join('\n')).digest('hex').slice(0, 16);
}

/**
 * The deterministic run id of a repair of `docSet`: the same doc set within one cooldown window
 * always maps to the same id, so admission suppresses a second repair centrally (in the store),
 * whichever process or instance asks.
 */
export function repairRunId(docSet: string, now: Date, cooldownMs: number): string {
  return `${SERVICE_RUN_ID_PREFIXES.driftRepair}${docSet}:${Math.floor(now.getTime() / Math.max(1, cooldownMs))}`;
}

/** The doc set the pending paths make: the first ones up to the bound, sorted, and its key. */
export function pendingDocSet(pending: readonly string[]): { paths: string[]; docSet: string } {
  const paths = pending.slice(0, MAX_REPAIR_PATHS).sort();
  return { paths, docSet: docSetKey(paths) };
}
