import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { waitForTerminal } from '../support/http.js';
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
  const services: RuntimeService[] = [];
  afterAll(async () => {
    for (const s of services) await s.service.kill();
    await dropTestSchemas(TEST_DATABASE_URL!, [schema]);
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
});
