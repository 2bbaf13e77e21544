import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { shellManifest, writeOperatorType } from '../support/operator-types.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const SKIP_REASON = 'TEST_DATABASE_URL unset: two instances on one PostgreSQL skipped';

/**
 * A reload is per instance: a type added to the folder is triggerable on each instance sharing
 * the store once that instance has reloaded, and refused as unknown on one that has not.
 */
describe.skipIf(!TEST_DATABASE_URL)(`reloading task types on two instances of one PostgreSQL store (${TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : SKIP_REASON})`, () => {
  const schema = uniqueSchema('optypes_reload');
  const schemas = [schema];
  const services: RuntimeService[] = [];
  afterAll(async () => {
    for (const s of services) await s.service.kill();
    await dropTestSchemas(TEST_DATABASE_URL!, schemas);
  });

  it('each instance knows the new type once it reloaded, and refuses it before', async () => {
    const typesDir = join(tempDir('orch-shared-types-'), 'task-types');
    mkdirSync(typesDir, { recursive: true });
    const shared = { databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, schema), taskTypesDir: typesDir, sandbox: { allowUnsandboxed: true }, logLevel: 'warn' };
    // One after the other: the first applies the migrations. B admits and runs nothing, so every
    // run is A's to execute whichever instance admitted it.
    services.push(await startRuntimeService({ ...shared, concurrency: 2 }, tempDir('orch-optypes-a-')));
    services.push(await startRuntimeService({ ...shared, concurrency: 0 }, tempDir('orch-optypes-b-')));
    const [a, b] = services as [RuntimeService, RuntimeService];

    writeOperatorType(typesDir, 'pg-late', shellManifest('pg-late'), { 'run.sh': { text: 'echo \'{"ran":"yes"}\'' } });
    expect((await a.api.post('/api/task-types/reload', {}, TEST_KEYS.admin)).body).toMatchObject({ added: ['pg-late'] });

    const onA = await a.api.trigger('pg-late', {});
    expect(onA.status).toBe(202);
    expect((await waitForTerminal(a.api, onA.body.runId as string, 20_000)).result).toEqual({ success: true, ran: 'yes' });

    const beforeB = await b.api.trigger('pg-late', {});
    expect(beforeB.status).toBe(400);
    expect(beforeB.body.error).toMatchObject({ code: 'invalid_request', message: "unknown task type 'pg-late'" });

    expect((await b.api.post('/api/task-types/reload', {}, TEST_KEYS.admin)).body).toMatchObject({ added: ['pg-late'] });
    const onB = await b.api.trigger('pg-late', {});
    expect(onB.status).toBe(202);
    expect((await waitForTerminal(b.api, onB.body.runId as string, 20_000)).result).toEqual({ success: true, ran: 'yes' });
  });

  it('an instance that has not reloaded hands a claimed run of the new type back, and runs it once it has', async () => {
    const typesDir = join(tempDir('orch-shared-types-'), 'task-types');
    mkdirSync(typesDir, { recursive: true });
    const handBackSchema = uniqueSchema('optypes_handback');
    schemas.push(handBackSchema);
    const shared = { databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, handBackSchema), taskTypesDir: typesDir, sandbox: { allowUnsandboxed: true }, logLevel: 'warn' };
    // A admits and runs nothing; C runs everything but has not read the new type yet.
    const a = await startRuntimeService({ ...shared, concurrency: 0 }, tempDir('orch-handback-a-'));
    services.push(a);
    const c = await startRuntimeService({ ...shared, concurrency: 2 }, tempDir('orch-handback-c-'));
    services.push(c);

    writeOperatorType(typesDir, 'pg-later', shellManifest('pg-later'), { 'run.sh': { text: 'echo \'{"ran":"here"}\'' } });
    expect((await a.api.post('/api/task-types/reload', {}, TEST_KEYS.admin)).body).toMatchObject({ added: ['pg-later'] });
    const admitted = await a.api.trigger('pg-later', {});
    expect(admitted.status).toBe(202);
    const runId = admitted.body.runId as string;

    type Seen = { status: string; attempt: number; events: Array<{ name: string }> };
    const handedBack = await waitFor(async () => {
      const run = (await a.api.run<Seen>(runId)).body;
      return run.events.some((e) => e.name === 'handed-back') ? run : undefined;
    }, 20_000, 'the run to be handed back');
    expect(handedBack).toMatchObject({ status: 'pending', attempt: 1 });
    // C skips the type from then on: the run waits, it neither fails nor loops.
    await new Promise((r) => setTimeout(r, 1500));
    const waiting = (await a.api.run<Seen>(runId)).body;
    expect(waiting.status).toBe('pending');
    expect(waiting.events.filter((e) => e.name === 'handed-back')).toHaveLength(1);

    expect((await c.api.post('/api/task-types/reload', {}, TEST_KEYS.admin)).body).toMatchObject({ added: ['pg-later'] });
    const ended = await waitForTerminal(a.api, runId, 20_000);
    expect(ended).toMatchObject({ status: 'success', attempt: 1, result: { success: true, ran: 'here' } });
  });
});
