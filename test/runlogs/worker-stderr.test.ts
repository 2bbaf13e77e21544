import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadAgentRegistry } from '../../src/agents/registry.js';
import { systemClock } from '../../src/clock.js';
import { createRunLogBook } from '../../src/runlogs/run-log-book.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { createWorkerSpawner } from '../../src/workers/spawn-worker.js';
import { teeStderr } from '../../src/workers/stderr-tee.js';
import { tempDir, testConfig } from '../support/config.js';
import { FIXTURE_AGENTS_DIR } from '../support/paths.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

describe("a worker's standard error", () => {
  let store: StateStore | null = null;
  afterEach(async () => {
    vi.restoreAllMocks();
    await store?.close();
    store = null;
  });

  it("reaches the service's own stderr unchanged and the attempt's log as lines", async () => {
    store = openStateStore(join(tempDir(), 'state.json'));
    await store.open();
    const book = createRunLogBook({ store, clock: systemClock, logger: pino({ level: 'silent' }), secrets: [] });
    const spawner = createWorkerSpawner({ config: testConfig(), registry: loadAgentRegistry(FIXTURE_AGENTS_DIR), logger: pino({ level: 'silent' }) });
    const run = (await store.mutateRun('w1', insertIfAbsent(makeRun({ runId: 'w1' })))).after!;
    const passedOn: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      // The tee passes the worker's bytes on as Buffers; everything else here writes strings.
      if (Buffer.isBuffer(chunk)) {
        passedOn.push(chunk.toString());
        return true;
      }
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write);

    const log = book.open(run);
    const lines = Array.from({ length: 300 }, (_, i) => `stderr fixture line ${i}`);
    const outcome = await spawner.run({
      agentId: 'fixture-stderr',
      runId: 'w1',
      taskType: 'fixture-stderr',
      payload: { lines, noFinalBreak: true },
      onStderr: (chunk) => log.stderr(chunk),
    });
    await log.close();

    expect(outcome.ok).toBe(true);
    expect(passedOn.join('')).toBe(lines.join('\n'));
    const logs = await book.read('w1');
    expect(logs!.attempts[0]!.lines.map((l) => l.line)).toEqual(lines);
    expect(logs!.attempts[0]!.lines.every((l) => l.stream === 'stderr')).toBe(true);
  });

  it('is passed on even when the run log cannot take it', () => {
    const source = new PassThrough();
    const out = new PassThrough();
    const seen: Buffer[] = [];
    out.on('data', (chunk: Buffer) => seen.push(chunk));
    teeStderr(source, () => {
      throw new Error('log broken');
    }, out);
    source.write(Buffer.from('still here\n'));
    expect(Buffer.concat(seen).toString()).toBe('still here\n');
  });
});
