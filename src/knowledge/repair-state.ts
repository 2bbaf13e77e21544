/**
 * The repair loop's state: one store document (`knowledge-repair-loop/state`) holding the newest
 * repair records and the doc sets' live cooldowns, bounded on every write. It is read by anyone
 * and written only under the doc-repair lock (the store has no compare-and-set for documents),
 * so two instances never lose each other's records.
 */

import type { Clock } from '../clock.js';
import type { RunRepair } from '../domain/run-record.js';
import type { StateStore } from '../store/types.js';
import { liveCooldowns } from './repair-cooldown.js';

export const REPAIR_STATE_COLLECTION = 'knowledge-repair-loop';
const REPAIR_STATE_ID = 'state';
/** Repair records kept (newest first); older ones are dropped. */
export const MAX_REPAIR_RECORDS = 200;
export const VERIFICATION_MODE = 'pack-hash-and-source-hashes';

/** The bounded repair record kept in the store (one per repair, keyed by repairId = run id). */
export interface RepairRecord extends RunRepair {
  runId: string;
  docSet: string;
  paths: string[];
  admittedAt: string;
  updatedAt: string;
  finishedAt: string | null;
  packVersion: number | null;
  [key: string]: unknown;
}

export interface RepairState {
  repairs: RepairRecord[];
  /** Doc set key → end of its cooldown (ISO). */
  cooldowns: Record<string, string>;
}

export interface RepairStateDoc {
  read(): Promise<RepairState>;
  /** Call only while holding the doc-repair lock: the document is read, changed and written whole. */
  write(change: (state: RepairState) => RepairState): Promise<RepairState>;
}

function asRepairState(doc: Record<string, unknown> | null): RepairState {
  const repairs = Array.isArray(doc?.repairs) ? (doc.repairs as RepairRecord[]).filter((r) => typeof r?.repairId === 'string') : [];
  const cooldowns = typeof doc?.cooldowns === 'object' && doc.cooldowns !== null ? (doc.cooldowns as Record<string, string>) : {};
  return { repairs, cooldowns };
}

/** Whether a repair status is still under way (queued, running or retrying). */
export function isActiveRepair(status: RunRepair['status']): boolean {
  return status === 'queued' || status === 'running' || status === 'retrying';
}

/** `state` with `repair` first, replacing its older record. */
export function upsertRepair(state: RepairState, repair: RepairRecord): RepairState {
  return { ...state, repairs: [repair, ...state.repairs.filter((r) => r.repairId !== repair.repairId)] };
}

export function repairStateDoc(deps: { store: StateStore; clock: Clock }): RepairStateDoc {
  const { store, clock } = deps;
  const read = async () => asRepairState(await store.getDoc(REPAIR_STATE_COLLECTION, REPAIR_STATE_ID));
  return {
    read,
    async write(change) {
      const now = clock.now();
      const next = change(await read());
      const bounded = { repairs: next.repairs.slice(0, MAX_REPAIR_RECORDS), cooldowns: liveCooldowns(next.cooldowns, now) };
      await store.putDoc(REPAIR_STATE_COLLECTION, REPAIR_STATE_ID, bounded as unknown as Record<string, unknown>);
      return bounded;
    },
  };
}
