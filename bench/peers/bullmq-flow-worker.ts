/**
 * Peer process: a BullMQ Worker running a no-op handler for the flows scenario's fan-out/fan-in.
 * A `root` job's completion adds the rest of its flow through BullMQ's FlowProducer, in one
 * transaction: a `join` parent whose children are the middle steps, so BullMQ itself holds the
 * join until every child completed. (A BullMQ job has one parent, so a root shared by every
 * middle step cannot be declared up front; a root whose completion adds the fan-out is how a
 * BullMQ user writes this shape.) Counts executions per key, records each job's start and end
 * (BullMQ's own processedOn and finishedOn) and reports them over IPC; sends `flow-done` when a
 * round's join completed (or, with an `error`, that a step failed). Self-contained (transpiled to plain node).
 */
import { FlowProducer, Worker, type Job } from 'bullmq';

interface Args {
  queue: string;
  concurrency: number;
  host: string;
  port: number;
}

interface StepData {
  /** The round's key prefix; a step's key and job id are `<tag>.<step>` (BullMQ refuses a `:` in a job id). */
  tag: string;
  key: string;
  /** On the root: how many middle steps its completion adds. */
  middle?: number;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const connection = { host: args.host, port: args.port, maxRetriesPerRequest: null };
const counts: Record<string, number> = {};
const times: Record<string, { startedAt: number | null; finishedAt: number | null }> = {};
const flows = new FlowProducer({ connection });

const worker = new Worker(
  args.queue,
  async (job: Job<StepData>) => {
    counts[job.data.key] = (counts[job.data.key] ?? 0) + 1;
    return null;
  },
  { connection, concurrency: args.concurrency },
);
worker.on('error', (err) => console.error(`bullmq flow worker error: ${err.message}`));

async function addFanOut(root: StepData): Promise<void> {
  const middle = Array.from({ length: root.middle ?? 0 }, (_, i) => {
    const key = `${root.tag}.m${i}`;
    return { name: 'middle', queueName: args.queue, data: { tag: root.tag, key }, opts: { jobId: key } };
  });
  const join = `${root.tag}.join`;
  await flows.add({ name: 'join', queueName: args.queue, data: { tag: root.tag, key: join }, opts: { jobId: join }, children: middle });
}

worker.on('completed', (job: Job<StepData>) => {
  times[job.data.key] = { startedAt: job.processedOn ?? null, finishedAt: job.finishedOn ?? null };
  if (job.name === 'root') {
    addFanOut(job.data).catch((err: unknown) => process.send?.({ type: 'flow-done', tag: job.data.tag, error: `adding the fan-out failed: ${String(err)}` }));
  } else if (job.name === 'join') {
    process.send?.({ type: 'flow-done', tag: job.data.tag });
  }
});
worker.on('failed', (job) => {
  // A failed step ends the round at once, with its reason, instead of leaving the bench to time out.
  if (job) process.send?.({ type: 'flow-done', tag: (job.data as StepData).tag, error: `${job.name} ${job.id} failed: ${job.failedReason}` });
});

await worker.waitUntilReady();
await flows.waitUntilReady();
process.send?.({ type: 'ready' });

process.on('message', (raw) => {
  const message = raw as { type: string; tag?: string };
  if (message.type === 'report') {
    const prefix = `${message.tag ?? ''}.`;
    const pick = <T>(all: Record<string, T>) => Object.fromEntries(Object.entries(all).filter(([key]) => key.startsWith(prefix)));
    process.send?.({ type: 'report', counts: pick(counts), times: pick(times) });
  }
  if (message.type === 'stop') {
    void Promise.all([worker.close(), flows.close()]).then(() => process.exit(0));
  }
});
