import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotPath, snapshotsRoot } from '../../src/operator-types/program-store.js';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { shellManifest, startOperatorService, writeOperatorType, type OperatorService } from '../support/operator-types.js';

const FIELD = 'field() { sed -e "s/.*\\"$1\\":\\"\\([^\\"]*\\)\\".*/\\1/" "$ORCH_PAYLOAD_FILE"; }';
const program = (word: string) => `${FIELD}\nsleep "$(field wait)"\necho '{"program":"${word}"}'`;
const waitSchema = { type: 'object', properties: { wait: { type: 'string', pattern: '^[0-9.]+$' } }, required: ['wait'] };
/** One run at a time, so a second run waits in the queue while the folder is edited under it. */
const manifest = (type: string) => shellManifest(type, { payloadSchema: waitSchema, concurrency: 1 });

type Seen = { status: string; attempt: number; result?: unknown; events: Array<{ name: string; detail?: string }> };

/** An admitted run executes the program its type's folder held at the admission, from its snapshot. */
describe('program snapshots taken at load and reload, run by admitted runs', () => {
  let svc: OperatorService;
  const trigger = async (type: string, wait: string) => {
    const res = await svc.api.trigger(type, { wait });
    expect(res.status).toBe(202);
    return res.body.runId as string;
  };
  const run = async (runId: string) => (await svc.api.run<Seen>(runId)).body;
  const started = (runId: string) => waitFor(async () => ((await run(runId)).status === 'running' ? true : undefined), 10_000, 'the run to start');
  const digestOf = async (runId: string) => ((await svc.store.getRun(runId))!.payload.__taskType as { digest: string }).digest;

  beforeAll(async () => {
    svc = await startOperatorService((dir) => {
      writeOperatorType(dir, 'edited', manifest('edited'), { 'run.sh': { text: program('one') } });
      writeOperatorType(dir, 'moved', manifest('moved'), { 'run.sh': { text: program('one') } });
    });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('a program edited, then its folder deleted, after the admission: the run executes the old program', async () => {
    const first = await trigger('edited', '2');
    await started(first);
    const queued = await trigger('edited', '0');
    expect((await run(queued)).status).toBe('pending');
    // Edited with no reload, then gone altogether, while the run waits.
    writeFileSync(join(svc.typesDir, 'edited', 'run.sh'), program('two'));
    expect((await waitForTerminal(svc.api, first, 20_000)).result).toEqual({ success: true, program: 'one' });
    rmSync(join(svc.typesDir, 'edited'), { recursive: true });
    expect(await waitForTerminal(svc.api, queued, 20_000)).toMatchObject({ status: 'success', result: { success: true, program: 'one' } });
    // The run recorded the digest of the program it ran; its snapshot is in the state's folder.
    expect(existsSync(snapshotPath(snapshotsRoot(svc.config), await digestOf(queued)))).toBe(true);
  });

  it('an instance without the snapshot whose folder holds another program hands the run back; the same program again runs it', async () => {
    const first = await trigger('moved', '2');
    await started(first);
    const queued = await trigger('moved', '0');
    const digest = await digestOf(queued);
    // As on an instance with a disk of its own: no snapshot, and a folder edited since the admission.
    rmSync(snapshotPath(snapshotsRoot(svc.config), digest), { recursive: true });
    writeFileSync(join(svc.typesDir, 'moved', 'run.sh'), program('two'));
    await waitForTerminal(svc.api, first, 20_000);
    const handedBack = await waitFor(async () => {
      const seen = await run(queued);
      return seen.events.some((e) => e.name === 'handed-back') ? seen : undefined;
    }, 20_000, 'the run to be handed back');
    expect(handedBack).toMatchObject({ status: 'pending', attempt: 1 });
    expect(handedBack.events.find((e) => e.name === 'handed-back')?.detail).toContain('now holds another program');
    // The folder holds the admitted program again: the next claim rebuilds the snapshot from it and runs it.
    writeFileSync(join(svc.typesDir, 'moved', 'run.sh'), program('one'));
    expect(await waitForTerminal(svc.api, queued, 30_000)).toMatchObject({ status: 'success', attempt: 1, result: { success: true, program: 'one' } });
    expect(existsSync(snapshotPath(snapshotsRoot(svc.config), digest))).toBe(true);
  });

  it('a reload reports a changed program as changed, and old snapshots no run needs are pruned', async () => {
    const beforeRun = await trigger('moved', '0');
    const before = await digestOf(beforeRun);
    writeFileSync(join(svc.typesDir, 'moved', 'run.sh'), program('three'));
    expect((await svc.api.post('/api/task-types/reload', {}, TEST_KEYS.admin)).body).toMatchObject({ changed: ['moved'] });
    const after = await svc.api.trigger('moved', { wait: '0' });
    expect((await waitForTerminal(svc.api, after.body.runId as string, 20_000)).result).toEqual({ success: true, program: 'three' });
    // The snapshot of the program before the reload is kept until the next reload, then pruned (no run needs it).
    expect((await waitForTerminal(svc.api, beforeRun, 20_000)).result).toEqual({ success: true, program: 'one' });
    expect((await svc.api.post('/api/task-types/reload', {}, TEST_KEYS.admin)).body).toMatchObject({ unchanged: ['moved'] });
    await waitFor(async () => (existsSync(snapshotPath(snapshotsRoot(svc.config), before)) ? undefined : true), 5_000, 'the old snapshot to be pruned');
    expect(existsSync(snapshotPath(snapshotsRoot(svc.config), await digestOf(after.body.runId as string)))).toBe(true);
  });
});
