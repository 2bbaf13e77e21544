/**
 * A process admitting runs together through the PostgreSQL store, which SIGKILLs itself right
 * after the first group-committed batch's commit returned (its COMMIT, or the one statement that
 * inserts new runs) and before any caller's promise settled: a crash between a batch's commit
 * and its replies. Prints nothing: nothing was
 * acknowledged. Usage: batch-crash-writer.ts <database url with schema> <key prefix> <count>
 */
import pg from 'pg';
import { PostgresStateStore } from '../../src/store/postgres/postgres-state-store.js';
import { makeRun } from './runs.js';

const [url, prefix, countArg] = process.argv.slice(2);
const count = Number(countArg);

type QueryFn = (...args: unknown[]) => unknown;
const original = pg.Client.prototype.query as unknown as QueryFn;
const batching = new WeakSet<object>();
(pg.Client.prototype as unknown as { query: QueryFn }).query = function crashing(this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { name?: string } | undefined;
  if (typeof first === 'object' && first?.name === 'runs-insert-many') batching.add(this);
  if (typeof first === 'object' && first?.name?.startsWith('admit-new-runs-')) {
    // New runs are inserted by one statement that is its own commit (sent through the pool, which
    // passes a callback): die once it answered, before the store sees the answer.
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (err: unknown, res: unknown) => (err ? (callback as (e: unknown, r: unknown) => void)(err, res) : process.kill(process.pid, 'SIGKILL'));
      return original.apply(this, args);
    }
    const answered = original.apply(this, args) as Promise<unknown>;
    return answered.then(() => process.kill(process.pid, 'SIGKILL'));
  }
  const result = original.apply(this, args);
  if (first === 'COMMIT' && batching.has(this) && result instanceof Promise) {
    // The batch is committed; die before the store resolves any admission of it.
    return result.then(() => process.kill(process.pid, 'SIGKILL'));
  }
  return result;
};

const store = new PostgresStateStore(url!, { poolSize: 4 });
await store.open();
await Promise.all(
  Array.from({ length: count }, (_, i) => {
    const runId = `${prefix}-${i}`;
    return store.mutateRunAndAppend(runId, (current) => (current ? null : makeRun({ runId, taskId: runId })), () => []);
  }),
);
// Reaching here means no batch was formed: the parent reports it.
process.exit(3);
