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
  config: LimitsConfig,
  run: RunRecord,
  now: Date,
): Promise<string | null> {
  return (await queueHoldsOf(store, config, [run], now))[0]!;
}

type LimitsConfig = Pick<AppConfig, 'typeConcurrency'> & Partial<Pick<AppConfig, 'limits'>>;

/**
 * `queueHoldOf` for every run of a list, in its order, from one read of what the limits count
 * (none when no ready run is due or no limit is configured): a page of runs costs one read, not
 * one per run. Each run's hold is judged against the same moment, alone: not as if the ones
 * before it in the list had been claimed.
 */
export async function queueHoldsOf(
  store: Pick<StateStore, 'readLimitUsage'>,
  config: LimitsConfig,
  runs: readonly RunRecord[],
  now: Date,
): Promise<Array<string | null>> {
  const at = now.getTime();
  const options: ClaimOptions = { typeLimits: config.typeConcurrency, buckets: config.limits ?? [], now };
  const gated = isLimited(options) && runs.some((run) => run.queueState === 'ready' && isDue(run, at));
  const gate = gated ? claimGate(options, await store.readLimitUsage(options), at) : null;
  return runs.map((run) => {
    if (run.queueState !== 'ready') return null;
    if (!isDue(run, at)) return `not-before:${run.notBefore}`;
    return gate === null ? null : gate.heldBy({ type: run.type, key: fairnessKey(run) });
  });
}
