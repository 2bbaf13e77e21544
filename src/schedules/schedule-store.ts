import { Compile } from 'typebox/compile';
import type { StateStore } from '../store/types.js';
import {
  NO_FIRINGS,
  ScheduleDefinitionSchema,
  ScheduleFiringStateSchema,
  type ScheduleDefinition,
  type ScheduleFiringState,
} from './schedule-record.js';

/** Keyed-document collections of the state store (every driver has them, so every driver keeps schedules). */
export const SCHEDULES_COLLECTION = 'schedules';
export const SCHEDULE_FIRINGS_COLLECTION = 'schedule-firings';

const isDefinition = Compile(ScheduleDefinitionSchema);
const isFiringState = Compile(ScheduleFiringStateSchema);

/**
 * What firing did, for `recordFiring`: a tick admitted, or a tick not admitted (`runId`: the run
 * id the tick has, or would have had).
 */
export type FiringRecord =
  | { kind: 'fired'; fireAt: Date; runId: string; catchUp: boolean }
  | { kind: 'skipped'; fireAt: Date; runId: string; reason: string };

/**
 * Schedules in the state store. Definitions and firing state are two documents per schedule (see
 * schedule-record.ts). Nothing is cached here: every instance reads what the store holds now.
 */
export interface ScheduleStore {
  list(): Promise<ScheduleDefinition[]>;
  get(id: string): Promise<ScheduleDefinition | null>;
  put(definition: ScheduleDefinition): Promise<void>;
  /** Stores a new definition unless its id is taken (also by another instance at the same instant); true when stored. */
  create(definition: ScheduleDefinition): Promise<boolean>;
  /** Removes the definition and its firing state. */
  remove(id: string): Promise<void>;
  firings(id: string): Promise<ScheduleFiringState>;
  allFirings(): Promise<Map<string, ScheduleFiringState>>;
  /** Forgets the firing state (a new schedule reusing a deleted one's id starts clean). */
  resetFirings(id: string): Promise<void>;
  /**
   * Records one firing outcome unless a later one of the same kind is already recorded: several
   * instances firing the same ticks, one of them slower, never move `lastFiredAt` backwards.
   */
  recordFiring(id: string, record: FiringRecord): Promise<void>;
}

/** A stored document that is not a schedule (written by an older or broken build) is left out, not fatal. */
function asDefinition(doc: Record<string, unknown> | null): ScheduleDefinition | null {
  return doc !== null && isDefinition.Check(doc) ? doc : null;
}

function asFiringState(doc: Record<string, unknown> | null): ScheduleFiringState {
  return doc !== null && isFiringState.Check(doc) ? doc : NO_FIRINGS;
}

const later = (iso: string | null, than: Date) => iso !== null && Date.parse(iso) > than.getTime();

export function createScheduleStore(store: StateStore): ScheduleStore {
  const firings = async (id: string) => asFiringState(await store.getDoc(SCHEDULE_FIRINGS_COLLECTION, id));
  return {
    async list() {
      return (await store.listDocs(SCHEDULES_COLLECTION)).flatMap((doc) => asDefinition(doc) ?? []);
    },
    async get(id) {
      return asDefinition(await store.getDoc(SCHEDULES_COLLECTION, id));
    },
    put: (definition) => store.putDoc(SCHEDULES_COLLECTION, definition.id, { ...definition }),
    create: (definition) => store.insertDoc(SCHEDULES_COLLECTION, definition.id, { ...definition }),
    async remove(id) {
      await store.deleteDoc(SCHEDULES_COLLECTION, id);
      await store.deleteDoc(SCHEDULE_FIRINGS_COLLECTION, id);
    },
    firings,
    async allFirings() {
      const entries = await store.listDocEntries(SCHEDULE_FIRINGS_COLLECTION);
      return new Map(entries.map(({ id, doc }) => [id, asFiringState(doc)]));
    },
    resetFirings: (id) => store.deleteDoc(SCHEDULE_FIRINGS_COLLECTION, id),
    async recordFiring(id, record) {
      const current = await firings(id);
      let next: ScheduleFiringState;
      if (record.kind === 'fired') {
        if (later(current.lastFiredAt, record.fireAt)) return;
        next = { ...current, lastFiredAt: record.fireAt.toISOString(), lastRunId: record.runId, lastCatchUp: record.catchUp };
      } else {
        if (later(current.lastSkippedAt, record.fireAt)) return;
        const at = record.fireAt.toISOString();
        next = { ...current, lastSkippedAt: at, lastSkipReason: record.reason, lastSkip: { at, runId: record.runId, reason: record.reason } };
      }
      await store.putDoc(SCHEDULE_FIRINGS_COLLECTION, id, { ...next });
    },
  };
}
