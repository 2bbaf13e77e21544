/**
 * Peer process: a BullMQ Worker running a no-op handler. It counts executions per job key and
 * reports them over IPC on request ({type:'report'}). Self-contained (transpiled to plain node).
 */
import { Worker } from 'bullmq';

interface Args {
  queue: string;
  concurrency: number;
  host: string;
  port: number;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const counts: Record<string, number> = {};

const worker = new Worker(
  args.queue,
  async (job) => {
    const key = (job.data as { key: string }).key;
    counts[key] = (counts[key] ?? 0) + 1;
    return null;
  },
  {
    connection: { host: args.host, port: args.port, maxRetriesPerRequest: null },
    concurrency: args.concurrency,
  },
);
worker.on('error', (err) => console.error(`bullmq worker error: ${err.message}`));

await worker.waitUntilReady();
process.send?.({ type: 'ready' });

process.on('message', (raw) => {
  const message = raw as { type: string };
  if (message.type === 'report') process.send?.({ type: 'report', counts });
  if (message.type === 'stop') {
    void worker.close().then(() => process.exit(0));
  }
});
