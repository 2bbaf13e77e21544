import type { RunRecord } from '../domain/run-record.js';
import type { MutateResult, StateStore } from '../store/types.js';

/** What hears of the run writes a store commits for this process. */
export interface RunWriteObserver {
  /** A run write committed (changed or not). */
  written(result: MutateResult): void;
  /** A run claimed for an attempt (claimNextRun, claimRuns: writes that return no record before them). */
  claimed(run: RunRecord): void;
}

/** The store methods that write runs; every other member is the store's own. */
type RunWriteMethods = Pick<StateStore, 'mutateRun' | 'mutateRunAndAppend' | 'finishRun' | 'claimNextRun' | 'claimRuns'>;

/**
 * The store as the parts of this instance that change runs (the runtime, the model gateway) see
 * it: the same store, whose run writes are also told to `observer` once committed. The run
 * metrics are derived from them: a write is what the run event streams report too, but the
 * streams read every instance's events from the shared store, while these are this instance's
 * own, so their counters add up across instances instead of counting every run once per instance.
 *
 * Every other member (reads, the driver's own members such as a PostgreSQL pool) is the store's,
 * called on the store itself. An observer that throws never fails the write: it has committed.
 */
export function observeRunWrites(store: StateStore, observer: RunWriteObserver): StateStore {
  const tell = (what: () => void) => {
    try {
      what();
    } catch {
      // A metric is never worth a failed run write; the write has committed anyway.
    }
  };
  const written = (result: MutateResult) => {
    tell(() => observer.written(result));
    return result;
  };
  const claimed = (run: RunRecord) => tell(() => observer.claimed(run));
  const writes: RunWriteMethods = {
    mutateRun: async (runId, mutate) => written(await store.mutateRun(runId, mutate)),
    mutateRunAndAppend: async (runId, mutate, appendsFor) => written(await store.mutateRunAndAppend(runId, mutate, appendsFor)),
    finishRun: async (runId, mutate, task) => written(await store.finishRun(runId, mutate, task)),
    claimNextRun: async (options, mutate) => {
      const run = await store.claimNextRun(options, mutate);
      if (run !== null) claimed(run);
      return run;
    },
    claimRuns: async (options, max, mutate) => {
      const runs = await store.claimRuns(options, max, mutate);
      for (const run of runs) claimed(run);
      return runs;
    },
  };
  // The store's own methods, bound to it once (a driver's methods use its private state).
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property) {
      if (Object.hasOwn(writes, property)) return writes[property as keyof RunWriteMethods];
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      let method = bound.get(property);
      if (method === undefined) bound.set(property, (method = (value as (...args: unknown[]) => unknown).bind(target)));
      return method;
    },
  });
}
