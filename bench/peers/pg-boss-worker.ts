/**
 * Peer process: pg-boss 10 `work` handlers running a no-op. It counts executions per job key
 * and reports them over IPC on request ({type:'report'}). Self-contained (transpiled to plain node).
 * The schema and queue are created by the driver before this process starts.
 */
import PgBoss from 'pg-boss';

interface Args {
  connectionString: string;
  schema: string;
  queue: string;
  workers: number;
  batchSize: number;
  pollingIntervalSeconds: number;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const counts: Record<string, number> = {};

const boss = new PgBoss({
  connectionString: args.connectionString,
  schema: args.schema,
  max: Math.max(2, args.workers + 1),
  supervise: false,
  schedule: false,
  migrate: false,
});
boss.on('error', (err: Error) => console.error(`pg-boss worker error: ${err.message}`));

await boss.start();
// pg-boss waits its polling interval (at least 0.5 s) after every fetch. A worker that just
// got jobs asks for its next fetch at once (notifyWorker, part of pg-boss's API), so the
// interval only applies while the queue is empty and the figure is pg-boss's, not the setting's.
for (let i = 0; i < args.workers; i++) {
  let id = '';
  id = await boss.work<{ key: string }>(
    args.queue,
    { batchSize: args.batchSize, pollingIntervalSeconds: args.pollingIntervalSeconds },
    async (jobs) => {
      for (const job of jobs) counts[job.data.key] = (counts[job.data.key] ?? 0) + 1;
      if (jobs.length > 0 && id) boss.notifyWorker(id);
    },
  );
}
process.send?.({ type: 'ready' });

process.on('message', (raw) => {
  const message = raw as { type: string };
  if (message.type === 'report') process.send?.({ type: 'report', counts });
  if (message.type === 'stop') {
    void boss.stop({ graceful: true, wait: true, timeout: 5000 }).then(() => process.exit(0));
  }
});
