import type { Migration } from './index.js';

/**
 * Each append collection numbers its rows with a sequence of its own (`seq`), so keeping the
 * newest `keep` is a delete of `seq <= newest - keep`: an index range over the rows that go,
 * usually one. Layout 1 found the cut by walking `keep` index entries back from the newest row on
 * every append (about 0.7 ms of server time per append at 5,000 rows). A sequence needs no row
 * lock, so instances appending together do not wait on each other. Existing rows are numbered in
 * id order, and each sequence continues after its collection's highest number.
 */
export const appendSequences: Migration = {
  version: 2,
  description: 'append collections numbered by a sequence per collection',
  sql: `
CREATE SEQUENCE appended_seq_telemetry;
CREATE SEQUENCE appended_seq_milestones;
ALTER TABLE appended ADD COLUMN seq BIGINT;
UPDATE appended SET seq = numbered.n
  FROM (SELECT id, row_number() OVER (PARTITION BY collection ORDER BY id) AS n FROM appended) AS numbered
  WHERE appended.id = numbered.id;
SELECT setval('appended_seq_telemetry', COALESCE((SELECT MAX(seq) FROM appended WHERE collection = 'telemetry'), 0) + 1, false);
SELECT setval('appended_seq_milestones', COALESCE((SELECT MAX(seq) FROM appended WHERE collection = 'milestones'), 0) + 1, false);
ALTER TABLE appended ALTER COLUMN seq SET NOT NULL;
CREATE UNIQUE INDEX appended_collection_seq ON appended (collection, seq);
`,
};
