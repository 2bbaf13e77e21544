import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Coordination } from '../coordination/types.js';
import { CacheTags, type CacheInvalidator } from '../domain/cache-invalidation.js';
import { conflict, notFound } from '../domain/errors.js';
import type { Identity } from '../domain/identity.js';
import type { StateStore } from '../store/types.js';
import { Fingerprints, incidentIdFor, normalizeFingerprint } from './fingerprint.js';
import { withCoordinationLock } from './lock.js';
import { applySignal, keepNewest, normalize, resolveRecord, severityRank, withHistory } from './record.js';
import { INCIDENT_BOUNDS, type IncidentRecord, type IncidentSeverity, type IncidentSignal, type IncidentStatus } from './types.js';

/** The state-store collection of incident documents (one per incident id). */
export const INCIDENT_COLLECTION = 'incidents';

export interface IncidentLedgerDeps {
  store: StateStore;
  coordination: Coordination;
  clock: Clock;
  invalidator: CacheInvalidator;
  logger?: Logger;
}

export interface IncidentListQuery {
  status?: IncidentStatus;
  severity?: IncidentSeverity;
  classification?: string;
  includeResolved?: boolean;
  limit?: number;
  offset?: number;
}

export const incidentWriteTags = (incidentId: string) => [CacheTags.incidents, CacheTags.incident(incidentId)];

const isIncident = (doc: Record<string, unknown> | null): doc is Record<string, unknown> & IncidentRecord =>
  doc !== null && typeof doc.incidentId === 'string' && typeof doc.fingerprint === 'string';

/** Most severe first, then most recently seen. */
export function byUrgency(a: IncidentRecord, b: IncidentRecord): number {
  const open = Number(b.status !== 'resolved') - Number(a.status !== 'resolved');
  if (open !== 0) return open;
  const severity = severityRank(b.severity) - severityRank(a.severity);
  if (severity !== 0) return severity;
  return a.lastSeenAt < b.lastSeenAt ? 1 : a.lastSeenAt > b.lastSeenAt ? -1 : 0;
}

/**
 * The persistent incident ledger: one document per incident in the state store's `incidents`
 * collection (so it lives on every driver), each read-modify-write under a coordination lock
 * named after the incident (so concurrent writers on any instance never lose a write).
 *
 * Other modules report problems through `reportSignal` / `resolveSignal` (see docs/incidents.md).
 */
export function createIncidentLedger(deps: IncidentLedgerDeps) {
  const { store, coordination, clock, invalidator } = deps;

  async function get(incidentId: string): Promise<IncidentRecord | null> {
    const doc = await store.getDoc(INCIDENT_COLLECTION, incidentId);
    return isIncident(doc) ? (doc as IncidentRecord) : null;
  }

  async function require(incidentId: string): Promise<IncidentRecord> {
    const record = await get(incidentId);
    if (!record) throw notFound(`incident ${incidentId}`);
    return record;
  }

  async function all(): Promise<IncidentRecord[]> {
    return (await store.listDocs(INCIDENT_COLLECTION)).filter(isIncident) as IncidentRecord[];
  }

  /**
   * Atomic read-modify-write of one incident. `change` gets the stored record (null when none)
   * and returns the new one, or null to leave it as it is; returns the stored record after.
   */
  async function mutate(
    incidentId: string,
    change: (current: IncidentRecord | null) => IncidentRecord | null | Promise<IncidentRecord | null>,
    options: { evenIfCoordinationDown?: boolean } = {},
  ): Promise<IncidentRecord | null> {
    const onDown = options.evenIfCoordinationDown
      ? (err: unknown) => deps.logger?.warn({ err, incidentId }, 'coordination store failing; recording the incident without its lock')
      : undefined;
    return withCoordinationLock(
      coordination,
      `incident:${incidentId}`,
      async () => {
        const current = await get(incidentId);
        const next = await change(current);
        if (!next) return current;
        await store.putDoc(INCIDENT_COLLECTION, incidentId, next as unknown as Record<string, unknown>);
        // A failing coordination store cannot drop cached reads; the write itself stands.
        await invalidator.invalidate(incidentWriteTags(incidentId)).catch((err: unknown) => {
          if (!onDown) throw err;
          onDown(err);
        });
        return next;
      },
      onDown,
    );
  }

  /**
   * Opens or updates the incident of `signal.fingerprint` (and reopens it when it was resolved).
   * The generic entry point for every source: knowledge freshness, repairs and others call it.
   */
  async function reportSignal(signal: IncidentSignal): Promise<IncidentRecord> {
    const fingerprint = normalizeFingerprint(signal.fingerprint);
    const incidentId = incidentIdFor(fingerprint);
    const now = clock.now();
    // A coordination fault is recorded even though the coordination store (and its locks) fail.
    const options = { evenIfCoordinationDown: signal.source === 'coordination' };
    const stored = await mutate(incidentId, (current) => applySignal(current, { ...signal, fingerprint }, now), options);
    return stored!;
  }

  /** Resolves the incident of a fingerprint if it is open; null when there is none. */
  async function resolveSignal(fingerprint: string, reason = 'signal cleared', actor = 'source'): Promise<IncidentRecord | null> {
    const incidentId = incidentIdFor(normalizeFingerprint(fingerprint));
    const now = clock.now();
    const options = { evenIfCoordinationDown: fingerprint === Fingerprints.coordination() };
    return mutate(incidentId, (current) => (current ? resolveRecord(current, now, reason, actor) : null), options);
  }

  async function list(query: IncidentListQuery) {
    const limit = query.limit ?? 50;
    const offset = query.offset ?? 0;
    const includeResolved = query.includeResolved ?? query.status === 'resolved';
    const matching = (await all())
      .filter((i) => includeResolved || i.status !== 'resolved')
      .filter((i) => query.status === undefined || i.status === query.status)
      .filter((i) => query.severity === undefined || i.severity === query.severity)
      .filter((i) => query.classification === undefined || i.classification === query.classification)
      .sort(byUrgency);
    return { total: matching.length, limit, offset, incidents: matching.slice(offset, offset + limit) };
  }

  /**
   * Records an acknowledgement. A resolved incident has nothing left to take on: `conflict`; if
   * its signal returns it reopens, unacknowledged, as a new episode.
   */
  async function acknowledge(incidentId: string, identity: Identity, note: string | null): Promise<IncidentRecord> {
    await require(incidentId);
    const now = clock.now();
    const at = now.toISOString();
    const stored = await mutate(incidentId, (current) => {
      if (!current) return null;
      if (current.status === 'resolved') {
        throw conflict(`incident ${incidentId} is resolved (${current.resolution ?? 'no reason recorded'}); there is nothing to acknowledge`, { status: current.status });
      }
      const next: IncidentRecord = {
        ...current,
        acknowledged: true,
        acknowledgedAt: at,
        acknowledgedBy: identity.actor,
        acknowledgements: keepNewest([...current.acknowledgements, { at, actor: identity.actor, note }], INCIDENT_BOUNDS.acknowledgements),
        updatedAt: at,
      };
      return normalize(withHistory(next, { at, kind: 'acknowledged', actor: identity.actor, summary: `acknowledged by ${identity.actor}${note ? `: ${note}` : ''}` }));
    });
    return stored!;
  }

  async function setOwner(incidentId: string, owner: string, identity: Identity, note: string | null): Promise<IncidentRecord> {
    await require(incidentId);
    const at = clock.now().toISOString();
    const stored = await mutate(incidentId, (current) => {
      if (!current) return null;
      const next: IncidentRecord = {
        ...current,
        owner,
        ownershipHistory: keepNewest(
          [...current.ownershipHistory, { at, owner, previousOwner: current.owner, actor: identity.actor, source: 'operator' as const, note }],
          INCIDENT_BOUNDS.ownershipHistory,
        ),
        updatedAt: at,
      };
      return normalize(
        withHistory(next, {
          at,
          kind: 'owner-changed',
          actor: identity.actor,
          summary: `owner ${current.owner ?? 'none'} -> ${owner}${note ? `: ${note}` : ''}`,
          data: { owner, previousOwner: current.owner },
        }),
      );
    });
    return stored!;
  }

  return { get, require, all, list, mutate, reportSignal, resolveSignal, acknowledge, setOwner };
}

export type IncidentLedger = ReturnType<typeof createIncidentLedger>;
