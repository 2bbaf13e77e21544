import type { Migration } from './index.js';

/**
 * Less work for every run write.
 *
 * `runs_claim` (the ready runs by seq) is dropped: since layout 4 `runs_queued` (queue state,
 * seq) serves the claim's select and the counts of ready runs, and `runs_claim` was only an
 * entry more to write for every run admitted or put back in the queue.
 *
 * A run's record is about 2.4 KB once it has run, above the size at which PostgreSQL compresses a
 * row's values, so each write compressed it. With pglz, the default, that was the largest single
 * item of the database's profile (6% of its CPU in the `postgres` bench); lz4 compresses the same
 * records at a fraction of the cost. Only where the server was built with lz4 (it lists it among
 * `default_toast_compression`'s values); records already stored keep their compression, and both
 * read alike.
 */
export const runWritesLighter: Migration = {
  version: 5,
  description: 'run records compressed with lz4 where the server has it, the redundant index of ready runs dropped',
  sql: `
DROP INDEX IF EXISTS runs_claim;
DO $$
BEGIN
  IF 'lz4' = ANY (COALESCE((SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'), '{}'::text[])) THEN
    ALTER TABLE runs ALTER COLUMN doc SET COMPRESSION lz4;
  END IF;
END
$$;
`,
};
