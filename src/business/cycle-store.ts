import type { StateStore } from '../store/types.js';
import { initialSchedulerState, type CycleRecord, type SchedulerState } from './cycle-rules.js';

const CYCLES = 'business-cycles';
const BUSINESS = 'business';
const SCHEDULER_DOC = 'scheduler';

/**
 * Business cycles and the scheduler state as keyed documents of the state store, so both survive
 * restarts and every instance sharing the store sees them. Writers hold the business gate lock
 * (src/business/cycle-gate.ts): the store has no compare-and-set for documents.
 */
export function createCycleStore(store: StateStore, cron: string) {
  return {
    async scheduler(): Promise<SchedulerState> {
      const doc = await store.getDoc(BUSINESS, SCHEDULER_DOC);
      // The cadence comes from the configuration; a stored one from an older config is not kept.
      return { ...initialSchedulerState(cron), ...(doc as Partial<SchedulerState> | null), cron };
    },
    async saveScheduler(state: SchedulerState): Promise<void> {
      await store.putDoc(BUSINESS, SCHEDULER_DOC, state as unknown as Record<string, unknown>);
    },
    async cycle(cycleId: string): Promise<CycleRecord | null> {
      return (await store.getDoc(CYCLES, cycleId)) as CycleRecord | null;
    },
    async saveCycle(cycle: CycleRecord): Promise<void> {
      await store.putDoc(CYCLES, cycle.cycleId, cycle as unknown as Record<string, unknown>);
    },
    /** Newest first. */
    async cycles(): Promise<CycleRecord[]> {
      const docs = (await store.listDocs(CYCLES)) as unknown as CycleRecord[];
      return docs.sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : a.cycleId < b.cycleId ? 1 : -1));
    },
  };
}

export type CycleStore = ReturnType<typeof createCycleStore>;
