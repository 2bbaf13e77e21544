import type { Migration } from './index.js';

/**
 * Run tags (docs/tasks.md, "Run tags"): `GET /api/tasks/runs?tag=` reads runs by a containment
 * test on the document's `tags` array, which this GIN index answers. Only runs that carry tags
 * are in it (the partial predicate, repeated in the query), so an untagged run's writes never
 * touch it.
 */
export const runTags: Migration = {
  version: 11,
  description: 'runs indexed by their tags',
  sql: `CREATE INDEX runs_tags ON runs USING GIN ((doc -> 'tags') jsonb_path_ops) WHERE doc ? 'tags';`,
};
