/**
 * Child process for the crash tests: writes to a store as fast as group commit allows and prints
 * one line per acknowledged write, until the parent SIGKILLs it. Every line printed is a promise
 * the store made, so the parent checks each one after reopening.
 *
 *   node --import tsx test/support/store-crash-writer.ts <target> <run-id-prefix> [compactAfterEntries]
 *
 * Output lines: `run <runId>` once the run's insert is durable, `state <n>` once tasksProcessed
 * reached n durably, `ready` when the store is open.
 */
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import { openStateStore } from '../../src/store/open.js';
import { insertIfAbsent, makeRun } from './runs.js';

const [target, prefix, compactAfterEntries] = process.argv.slice(2);
if (target === undefined || prefix === undefined) throw new Error('usage: crash-writer <target> <prefix> [compactAfterEntries]');

const store =
  compactAfterEntries !== undefined && !target.startsWith('sql:')
    ? new FileStateStore(target, { compactAfterEntries: Number(compactAfterEntries) })
    : openStateStore(target);
await store.open();
process.stdout.write('ready\n');

const CONCURRENCY = 8;
for (let batch = 0; ; batch++) {
  const writes = Array.from({ length: CONCURRENCY }, async (_, i) => {
    const runId = `${prefix}-${batch * CONCURRENCY + i}`;
    await store.mutateRun(runId, insertIfAbsent(makeRun({ runId, taskId: runId })));
    process.stdout.write(`run ${runId}\n`);
  });
  writes.push(
    (async () => {
      const state = await store.mutateState((s) => ({ ...s, tasksProcessed: s.tasksProcessed + 1 }));
      process.stdout.write(`state ${state.tasksProcessed}\n`);
    })(),
  );
  await Promise.all(writes);
}
