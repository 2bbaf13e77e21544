import type { AppConfig } from '../config/types.js';
import type { RunRecord } from '../domain/run-record.js';
import { fairnessKey, isDue } from '../store/fair-claims.js';
import { claimGate, isLimited } from '../store/limit-buckets.js';
import type { ClaimOptions, StateStore } from '../store/types.js';

/**
 * What holds a ready run back now (docs/queue.md): `not-before:<instant>` while its not-before
 * time (a trailing debounce's window end) has not come, the name of the first limit bucket it
 * matches that has no room, `type:<type>` for a per-type limit at its cap, or null (nothing
 * holds it: it waits only for a slot, or its turn). Read without the claims' lock, so it
 * describes the moment of the read; the claim decides for itself.
 */
export async function queueHoldOf(
  store: Pick<StateStore, 'readLimitUsage'>,
  config: Pick<AppConfig, 'typeConcurrency'> & Partial<Pick<AppConfig, 'limits'>>,
  run: RunRecord,
  now: Date,
): Promise<string | null> {
  if (run.queueState !== 'ready') return null;
  if (!isDue(run, now.getTime())) return `not-before:${run.notBefore}`;
  const options: ClaimOptions = { typeLimits: config.typeConcurrency, buckets: config.limits ?? [], now };
  if (!isLimited(options)) return null;
  const usage = await store.readLimitUsage(options);
  return claimGate(options, usage, now.getTime()).heldBy({ type: run.type, key: fairnessKey(run) });
}
