/**
 * Tags of cached reads. Readers (the route table's `cache.tags`) and writers (invalidation after
 * a state write) name the same tags, so the names live in the domain beside the writers.
 */
export const CacheTags = {
  runs: 'runs',
  run: (runId: string) => `run:${runId}`,
  approvals: 'approvals',
  catalog: 'catalog',
  persistence: 'persistence',
  skills: 'skills',
  agents: 'agents',
  openapi: 'openapi',
  /** Incident ledger writes; aggregates that show incident rollups carry it. */
  incidents: 'incidents',
  /** Public proof feeds (milestones, command center); runs writes reach them through `runs`. */
  proof: 'proof',
  /** The knowledge summary and query: bumped whenever the knowledge index changes. */
  knowledge: 'knowledge',
  incident: (incidentId: string) => `incident:${incidentId}`,
} as const;

/** Drops cached reads by tag; a writer awaits it before acknowledging the write. */
export interface CacheInvalidator {
  invalidate(tags: string[]): Promise<void>;
}
