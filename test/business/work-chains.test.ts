import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SAMPLE_PROJECT_DIR } from '../../src/demo/sample-project.js';
import type { Identity } from '../../src/domain/identity.js';
import { createTriggerCheck } from '../../src/runtime/trigger-check.js';
import { seededBusinessHarness, type Harness } from '../support/business-harness.js';
import { operator } from '../support/identities.js';
import { POSIX } from '../support/outside-files.js';

const OUTCOME = 'Inspect how reorder levels are parsed';
const ADMIN: Identity = { actor: 'chief', role: 'admin', apiKeyLabel: 'chief', apiKeyExpiresAt: null };

describe('work chains', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await seededBusinessHarness();
  });
  afterEach(() => h.close());

  /** Admits a work cycle the way a trigger does after its checks, for `actor`, and runs it. */
  async function run(actor: string, payload: Record<string, unknown>) {
    const admitted = await h.admit({ type: 'autonomous-work-cycle', payload: { requestedOutcome: OUTCOME, projectRoot: SAMPLE_PROJECT_DIR, ...payload }, source: 'api', requestedBy: actor });
    return h.execute(admitted.run.runId);
  }

  /** The lane's check of a client's request (the trigger route runs it after the payload schema). */
  function requesterCheck(payload: Record<string, unknown>, identity: Identity) {
    const lane = h.business.lanes.find((l) => l.type === 'autonomous-work-cycle')!;
    return lane.requesterCheck!({ requestedOutcome: OUTCOME, ...payload }, identity);
  }

  const evidenceRoot = () => join(h.config.logsDir, 'autonomous-work');

  it('refuses a workChainId that is not a name at admission, naming the field', async () => {
    const check = createTriggerCheck(h.config.workspaceRoot);
    for (const workChainId of ['..', '.', 'a/b', '../../etc', '']) {
      expect(() => check({ type: 'autonomous-work-cycle', payload: { requestedOutcome: OUTCOME, workChainId } })).toThrow(
        expect.objectContaining({ code: 'invalid_request', details: [expect.objectContaining({ path: '/body/payload/workChainId' })] }),
      );
    }
    expect(check({ type: 'autonomous-work-cycle', payload: { requestedOutcome: OUTCOME, workChainId: 'chain-1.a_b' } }).type).toBe('autonomous-work-cycle');
  });

  it('never writes outside its chain folder: a run id or a workChainId that is no name', async () => {
    // A run whose id is ".." (an idempotency key) works in a chain named by its task id.
    const dotted = await run('ops', { idempotencyKey: '..' });
    expect(dotted.status).toBe('completed');
    const taskId = (await h.store.getRun('..'))!.taskId;
    expect(dotted.result).toMatchObject({ chainId: taskId, checkpointPath: `autonomous-work/${taskId}/checkpoint.json` });
    expect(readdirSync(evidenceRoot())).toEqual([taskId]);
    expect(existsSync(join(h.config.logsDir, 'checkpoint.json'))).toBe(false);

    // A workChainId that skipped the trigger's check (admitted by another path) is refused, nothing written.
    const named = await run('ops', { idempotencyKey: 'w-dots', workChainId: '..' });
    expect(named).toEqual({ status: 'error', error: expect.stringMatching(/^workChainId "\.\." is not a name/) });
    expect(existsSync(join(h.config.logsDir, 'checkpoint.json'))).toBe(false);
    expect(readdirSync(evidenceRoot())).toEqual([taskId]);
  });

  it('belongs to the actor who started it: another operator is refused (403 forbidden), an admin may continue it', async () => {
    expect((await run('ops-a', { idempotencyKey: 'chain-a' })).status).toBe('completed');
    const checkpoint = join(evidenceRoot(), 'chain-a', 'checkpoint.json');
    const before = readFileSync(checkpoint, 'utf8');

    await expect(requesterCheck({ workChainId: 'chain-a' }, operator('ops-a'))).resolves.toBeUndefined();
    await expect(requesterCheck({ workChainId: 'chain-a' }, operator('ops-b'))).rejects.toMatchObject({
      code: 'forbidden',
      message: "workChainId 'chain-a' names a work chain another actor started; only its owner or an admin may continue it",
      details: [{ path: '/body/payload/workChainId', message: expect.any(String) }],
    });
    await expect(requesterCheck({ workChainId: 'no-such-chain' }, operator('ops-a'))).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ path: '/body/payload/workChainId', message: expect.stringContaining('names no work chain') }],
    });

    // Admitted another way (a schedule's firing, say), the run is refused when it executes: the chain is untouched.
    const taken = await run('ops-b', { idempotencyKey: 'chain-b-takes-a', workChainId: 'chain-a' });
    expect(taken).toEqual({ status: 'error', error: "refused: work chain 'chain-a' was started by another actor; only its owner or an admin may continue it" });
    expect(readFileSync(checkpoint, 'utf8')).toBe(before);
    // Naming a chain nobody started does not start one.
    expect(await run('ops-b', { idempotencyKey: 'chain-b-invents', workChainId: 'invented' })).toMatchObject({ status: 'error', error: expect.stringContaining('names no work chain') });
    expect(existsSync(join(evidenceRoot(), 'invented'))).toBe(false);

    // An admin continues it, and is recorded as one who may.
    await expect(requesterCheck({ workChainId: 'chain-a' }, ADMIN)).resolves.toBeUndefined();
    const continued = await run('chief', { idempotencyKey: 'chain-a-by-admin', workChainId: 'chain-a' });
    expect(continued).toMatchObject({ status: 'completed', result: { chainId: 'chain-a' } });
    expect(JSON.parse(readFileSync(checkpoint, 'utf8'))).toMatchObject({ lastRunId: 'chain-a-by-admin' });
  });

  it.skipIf(!POSIX)('refuses a linked evidence folder, writing nothing through it', async () => {
    const outside = join(h.config.baseDir, 'outside-evidence');
    mkdirSync(outside);
    mkdirSync(h.config.logsDir, { recursive: true });
    symlinkSync(outside, evidenceRoot());
    const outcome = await run('ops', { idempotencyKey: 'linked-1' });
    expect(outcome).toEqual({
      status: 'error',
      error: 'refused: the work-cycle evidence folder (logs/autonomous-work) is a symbolic link; configure the folder it points to instead',
    });
    expect(readdirSync(outside)).toEqual([]);
  });

  it.skipIf(!POSIX)('refuses a hard-linked checkpoint and leaves the file it shares content with alone', async () => {
    const outside = join(h.config.baseDir, 'outside-checkpoint.json');
    writeFileSync(outside, '{"kept":true}\n');
    mkdirSync(join(evidenceRoot(), 'hard-1'), { recursive: true });
    linkSync(outside, join(evidenceRoot(), 'hard-1', 'checkpoint.json'));
    await expect(run('ops', { idempotencyKey: 'hard-1' })).rejects.toMatchObject({
      code: 'scope_outside_workspace',
      message: 'work-cycle checkpoint checkpoint.json is a hard link (2 links): its content may live outside the workspace; not written',
    });
    expect(readFileSync(outside, 'utf8')).toBe('{"kept":true}\n');
  });

  it.skipIf(!POSIX)('does not list or read a hard-linked file of the project, and says so in its evidence', async () => {
    const outside = join(h.config.baseDir, 'outside-notes.md');
    writeFileSync(outside, 'reorder OUTSIDE-work-cycle-secret\n');
    linkSync(outside, join(h.config.workspaceRoot, SAMPLE_PROJECT_DIR, 'reorder-notes.md'));
    const outcome = await run('ops', { idempotencyKey: 'hard-inventory' });
    expect(outcome.status).toBe('completed');
    const steps = (outcome.result as { steps: Array<{ name: string; evidence: Record<string, unknown> }> }).steps;
    expect(steps[0]!.evidence.skipped).toEqual([
      { path: `${SAMPLE_PROJECT_DIR}/reorder-notes.md`, reason: 'hard link (2 links): its content may live outside the workspace' },
    ]);
    expect(JSON.stringify(outcome.result)).not.toContain('OUTSIDE-work-cycle-secret');
    expect(JSON.stringify(steps[0]!.evidence.sample)).not.toContain('reorder-notes.md');
  });
});
