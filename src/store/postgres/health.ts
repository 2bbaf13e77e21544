import type pg from 'pg';

/** Row counts per collection, named as the other drivers name them (`runs`, `telemetry`, `docs:<collection>`, ...). */
export async function collectionCounts(pool: pg.Pool, stateKey: string): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ name: string; n: string }>(
    `SELECT 'runs' AS name, COUNT(*) AS n FROM runs
     UNION ALL SELECT 'taskHistory', COUNT(*) FROM task_history WHERE state_key = $1
     UNION ALL SELECT 'telemetry', COUNT(*) FROM appended WHERE collection = 'telemetry'
     UNION ALL SELECT 'milestones', COUNT(*) FROM appended WHERE collection = 'milestones'
     UNION ALL SELECT 'stateDocuments', COUNT(*) FROM state_documents
     UNION ALL SELECT 'docs:' || collection, COUNT(*) FROM documents GROUP BY collection`,
    [stateKey],
  );
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.n)]));
}

export async function serverVersion(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ v: string }>("SELECT current_setting('server_version') AS v");
  return rows[0]!.v;
}
