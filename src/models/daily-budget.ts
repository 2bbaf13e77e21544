import type { Clock } from '../clock.js';
import type { Coordination } from '../coordination/types.js';

/** The coordination budget name; the UTC day is part of its key, so a day never spans two counters. */
export const MODEL_BUDGET_NAME = 'models:daily-usd';
/** Settling a call that cost more than its reservation must always go through. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

export interface BudgetReservation {
  admitted: boolean;
  /** The day's spend after the reservation (or as found, when refused). */
  spentUsd: number;
  day: string;
}

/**
 * The daily model budget in US dollars, shared by every instance through the coordination port
 * (atomic on Redis). A call reserves its worst-case cost before it is sent and settles to the real
 * cost after; a reservation the day's remainder cannot cover is refused and no call is made.
 * Without a limit nothing is reserved and the budget is reported as null figures.
 */
export function createDailyBudget(deps: { coordination: Pick<Coordination, 'spendDailyBudget'>; clock: Clock; limitUsd: number | null }) {
  const { coordination, clock, limitUsd } = deps;
  const today = () => clock.now().toISOString().slice(0, 10);
  return {
    limitUsd,
    async reserve(amountUsd: number): Promise<BudgetReservation> {
      const day = today();
      if (limitUsd === null) return { admitted: true, spentUsd: 0, day };
      const { admitted, spent } = await coordination.spendDailyBudget(MODEL_BUDGET_NAME, day, amountUsd, limitUsd);
      return { admitted, spentUsd: spent, day };
    },
    /** Replaces a reservation by what the call really cost (less, usually; never refused). */
    async settle(reservation: BudgetReservation, reservedUsd: number, actualUsd: number): Promise<number> {
      if (limitUsd === null) return 0;
      const { spent } = await coordination.spendDailyBudget(MODEL_BUDGET_NAME, reservation.day, actualUsd - reservedUsd, NO_LIMIT);
      return spent;
    },
    /** Today's remainder, or null when no limit is configured. */
    async remainingUsd(): Promise<number | null> {
      if (limitUsd === null) return null;
      const { spent } = await coordination.spendDailyBudget(MODEL_BUDGET_NAME, today(), 0, NO_LIMIT);
      return remainderOf(limitUsd, spent);
    },
  };
}

export function remainderOf(limitUsd: number, spentUsd: number): number {
  return Math.max(0, Math.round((limitUsd - spentUsd) * 1e8) / 1e8);
}

export type DailyBudget = ReturnType<typeof createDailyBudget>;
