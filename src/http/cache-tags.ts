/** Cache tags shared by readers (route table `cache.tags`) and writers (invalidation after state writes). */
export const CacheTags = {
  runs: 'runs',
  run: (runId: string) => `run:${runId}`,
  approvals: 'approvals',
  catalog: 'catalog',
  persistence: 'persistence',
  state: 'state',
  knowledge: 'knowledge',
  openapi: 'openapi',
} as const;

/** Something that can drop cached reads by tag; writers call it before acknowledging a write. */
export interface CacheInvalidator {
  invalidate(tags: string[]): Promise<void>;
}
