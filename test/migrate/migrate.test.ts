import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMigrateCommand } from '../../src/migrate/command.js';
import { migrateStore } from '../../src/migrate/migrate-store.js';
import { digestStore } from '../../src/migrate/read-collections.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { tempDir } from '../support/config.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

const STATUSES = ['success', 'failed', 'pending', 'running', 'retrying'] as const;
const schemas: string[] = [];

afterAll(async () => {
  if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, schemas);
});

/** A file store holding some of everything: 450 runs (more than one page), appended records, state lists, keyed documents. */
async function seededFileStore(dir: string): Promise<string> {
  const path = join(dir, 'state', 'orchestrator-state.json');
  const store = openStateStore(path);
  await store.open();
  for (let i = 0; i < 450; i++) {
    const status = STATUSES[i % STATUSES.length]!;
    await store.mutateRun(
      `run-${i}`,
      insertIfAbsent(
        makeRun({
          runId: `run-${i}`,
          type: i % 7 === 0 ? 'heartbeat' : 'summarize-content',
          internal: i % 7 === 0,
          status,
          queueState: status === 'pending' || status === 'retrying' ? 'ready' : null,
          payload: { content: `texte n°${i} – ünïcode ✓`, nested: { list: [i, null, true], depth: { z: 1, a: 2 } } },
          result: status === 'success' ? { summary: `done ${i}`, score: i / 7 } : null,
        }),
      ),
    );
  }
  for (let i = 0; i < 30; i++) await store.append('telemetry', { event: i % 2 ? 'queued' : 'accepted', runId: `run-${i}`, n: i }, 1000);
  for (let i = 0; i < 4; i++) await store.append('milestones', { milestoneId: `m-${i}`, kind: 'startup' }, 1000);
  await store.mutateState((s) => ({
    ...s,
    lastStartedAt: '2026-05-01T10:00:00.000Z',
    docsIndexed: ['runbooks/a.md', 'runbooks/b.md'],
    communityResponses: [{ timestamp: 't', postId: 'p1', postTitle: 'Title', subcommunity: 'sub', draftResponse: 'draft', confidence: 0.4 }],
    rssDrafts: [{ timestamp: 't', feedUrl: 'feed', itemTitle: 'item', itemUrl: 'url', publishedAt: 't', relevanceScore: 80, urgency: 'high' }],
    notes: 'kept across stores',
  }));
  for (let i = 0; i < 12; i++) {
    await store.recordTask({ type: 'doc-sync', status: i % 3 ? 'completed' : 'error', timestamp: `2026-05-01T10:00:${String(i).padStart(2, '0')}Z`, durationMs: i, ...(i % 3 ? {} : { error: `e${i}` }) });
  }
  await store.putDoc('approval-index', 'task-b', { taskId: 'task-b', runId: 'run-2' });
  await store.putDoc('approval-index', 'task-a', { taskId: 'task-a', runId: 'run-1' });
  await store.putDoc('incidents', 'inc-1', { severity: 'warning', history: [{ at: 't', note: 'opened' }] });
  await store.close();
  return path;
}

async function digestOf(target: string, databaseUrl?: string) {
  const store = openStateStore(target, { databaseUrl });
  await store.open();
  try {
    return await digestStore(store);
  } finally {
    await store.close();
  }
}

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return runMigrateCommand(args, env, { cwd, out: (l) => out.push(l), err: (l) => err.push(l) }).then((code) => ({ code, out, err }));
}

describe('migrate command', () => {
  it('copies file -> sql losslessly, with counts and hashes per collection as evidence, and refuses to overwrite without --force', async () => {
    const dir = tempDir('orch-migrate-');
    const source = await seededFileStore(dir);
    const first = await run(['--from', source, '--to', 'sql:./copy/state.sqlite', '--evidence', 'evidence.json'], dir);
    expect(first.err).toEqual([]);
    expect(first.code).toBe(0);
    const evidence = JSON.parse(readFileSync(join(dir, 'evidence.json'), 'utf8'));
    expect(evidence.status).toBe('verified');
    expect(evidence.collections.runs).toMatchObject({ source: { count: 450 }, target: { count: 450 }, written: 450 });
    expect(evidence.collections.telemetry.source.count).toBe(30);
    expect(evidence.collections['docs:approval-index'].target.count).toBe(2);
    expect(evidence.collections.state.source.sha256).toBe(evidence.collections.state.target.sha256);
    expect(first.out.join('\n')).toContain('verified');

    const target = `sql:${join(dir, 'copy', 'state.sqlite')}`;
    expect(await digestOf(target)).toEqual(await digestOf(source));
    // Order is kept: the target numbers runs again, in the source's admission order.
    const copy = openStateStore(target);
    await copy.open();
    const oldest = await copy.listRuns({ includeInternal: true, order: 'oldest', limit: 3 });
    expect(oldest.items.map((r) => r.runId)).toEqual(['run-0', 'run-1', 'run-2']);
    expect((await copy.getState()).taskHistory).toHaveLength(12);
    expect(await copy.listDocEntries('approval-index')).toEqual([
      { id: 'task-a', doc: { taskId: 'task-a', runId: 'run-1' } },
      { id: 'task-b', doc: { taskId: 'task-b', runId: 'run-2' } },
    ]);
    await copy.close();

    const refused = await run(['--from', source, '--to', 'sql:./copy/state.sqlite'], dir);
    expect(refused.code).toBe(1);
    expect(refused.err.join('\n')).toMatch(/is not empty; pass --force/);
    const forced = await run(['--from', source, '--to', 'sql:./copy/state.sqlite', '--force', '--evidence', 'again.json'], dir);
    expect(forced.code).toBe(0);
    // Nothing was left to write: the copy already held every record.
    expect(JSON.parse(readFileSync(join(dir, 'again.json'), 'utf8')).collections.runs.written).toBe(0);
  });

  it('resumes an interrupted migration without --force and finishes it verified', async () => {
    const dir = tempDir('orch-migrate-resume-');
    const sourcePath = await seededFileStore(dir);
    const source = openStateStore(sourcePath);
    const target = openStateStore(`sql:${join(dir, 'resume.sqlite')}`);
    await source.open();
    await target.open();
    // The first pass dies after 250 runs (a source that fails part way through its second page).
    let served = 0;
    const failing = new Proxy(source, {
      get(store, name: keyof StateStore) {
        if (name !== 'listRuns') return (store[name] as unknown as (...a: unknown[]) => unknown).bind?.(store) ?? store[name];
        return async (query: Parameters<StateStore['listRuns']>[0]) => {
          if (served >= 250) throw new Error('connection lost');
          const page = await store.listRuns(query);
          served += page.items.length;
          return page;
        };
      },
    });
    const options = { from: 'source', to: 'target', force: false, now: () => new Date() };
    await expect(migrateStore(failing, target, options)).rejects.toThrow('connection lost');
    expect((await target.countRuns(true)).total).toBeGreaterThan(0);

    const resumed = await migrateStore(source, target, options);
    expect(resumed).toMatchObject({ status: 'verified', resumed: true, mismatches: [] });
    expect(resumed.collections.runs?.target?.count).toBe(450);
    expect(resumed.collections.runs?.written).toBeLessThan(450);
    // A finished migration is no longer resumable: a new one into this target needs --force.
    await expect(migrateStore(source, target, options)).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('pass --force') });
    await source.close();
    await target.close();
  });

  it('refuses bad arguments and the same store on both ends', async () => {
    const dir = tempDir('orch-migrate-args-');
    expect((await run(['--from', 'a.json'], dir)).code).toBe(2);
    expect((await run(['--from', 'a.json', '--to', 'b.json', '--bogus'], dir)).code).toBe(2);
    const same = await run(['--from', 'state.json', '--to', './state.json'], dir);
    expect(same.code).toBe(1);
    expect(same.err.join('')).toContain('same store');
  });

  describe.skipIf(!TEST_DATABASE_URL)(`into PostgreSQL${TEST_DATABASE_URL ? '' : ' (TEST_DATABASE_URL unset: skipped)'}`, () => {
    it('round trip file -> sql -> postgres keeps every record (hash-equal), and file -> postgres too', async () => {
      const dir = tempDir('orch-migrate-pg-');
      const source = await seededFileStore(dir);
      const viaSql = uniqueSchema('mig_a');
      const direct = uniqueSchema('mig_b');
      schemas.push(viaSql, direct);
      expect((await run(['--from', source, '--to', 'sql:./state.sqlite'], dir)).code).toBe(0);
      const toPg = await run(['--from', 'sql:./state.sqlite', '--to', postgresUrlWithSchema(TEST_DATABASE_URL!, viaSql)], dir);
      expect(toPg.err).toEqual([]);
      expect(toPg.code).toBe(0);
      expect(toPg.out.join('\n')).not.toMatch(/postgres:\/\/[^ ]*@/);
      const fileToPg = await run(['--from', source, '--to', 'postgres'], dir, { DATABASE_URL: postgresUrlWithSchema(TEST_DATABASE_URL!, direct) });
      expect(fileToPg.code).toBe(0);

      const expected = await digestOf(source);
      expect(await digestOf('postgres', postgresUrlWithSchema(TEST_DATABASE_URL!, viaSql))).toEqual(expected);
      expect(await digestOf('postgres', postgresUrlWithSchema(TEST_DATABASE_URL!, direct))).toEqual(expected);
      expect(expected.runs!.count).toBe(450);
    }, 60_000);
  });
});
