import type { IncidentReadPort } from '../incidents/read-port.js';

/**
 * What the aggregates (extended health, dashboard, companion briefs) read from parts of the
 * service built beside them. Each is a small read port; a port not wired yet (or failing) shows
 * as explicit `null` figures with an `unavailableReason`, never as zeros that look like truth.
 */
export interface KnowledgeReadPort {
  stats(): Promise<{ indexedEntries: number; conceptCount: number }>;
}

export interface RepairReadPort {
  counts(): Promise<{ activeCount: number; verifiedCount: number; failedCount: number }>;
}

export interface ProofReadPort {
  /** Proof items (milestones, deliveries) as the public proof surface counts them. */
  summary(): Promise<{ itemCount: number; atRiskCount: number; deadLetterCount: number; latestAt: string | null }>;
}

export interface BusinessReadPort {
  summary(): Promise<{ schedulerMode: string; activeCycleId: string | null; lastCycleStatus: string | null; nextRunAt: string | null }>;
}

export interface AggregateReadPorts {
  incidents: IncidentReadPort;
  knowledge?: KnowledgeReadPort;
  repairs?: RepairReadPort;
  proof?: ProofReadPort;
  business?: BusinessReadPort;
}

/** A port's figures, or the same keys as null with the reason they are missing. */
export type Maybe<T extends Record<string, unknown>> =
  | (T & { unavailableReason: null })
  | ({ [K in keyof T]: null } & { unavailableReason: string });

export const NOT_WIRED = (what: string) => `${what} is not wired into this build yet`;

/** Reads an optional port; an absent port or one that throws yields nulls and the reason. */
export async function readPort<T extends Record<string, unknown>>(
  keys: readonly (keyof T & string)[],
  what: string,
  read: (() => Promise<T>) | undefined,
): Promise<Maybe<T>> {
  const empty = (reason: string) =>
    ({ ...Object.fromEntries(keys.map((k) => [k, null])), unavailableReason: reason }) as Maybe<T>;
  if (!read) return empty(NOT_WIRED(what));
  try {
    return { ...(await read()), unavailableReason: null };
  } catch (err) {
    // The port's own message says what failed; clipped so a verbose driver error stays short.
    const message = (err instanceof Error ? err.message : String(err)).slice(0, 200);
    return empty(`${what} could not be read: ${message}`);
  }
}
