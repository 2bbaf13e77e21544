import { afterEach, describe, expect, it } from 'vitest';
import { orch } from '../support/cli.js';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

let server: LoopbackServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const RUN_ID = '5d1f0c2a-7e3b-4c9d-8a6f-0b1c2d3e4f50';
const SEARCH = `/api/tasks/runs?idPrefix=${RUN_ID}&includeInternal=true&limit=10`;

describe('short ids against a service older than ?idPrefix=', () => {
  it('takes the word as a whole id when the service refuses the parameter', async () => {
    const refusal = { error: { code: 'invalid_request', message: 'The request querystring is invalid', requestId: 'r-1', details: [{ path: '/querystring/idPrefix', message: 'is not an allowed property' }] } };
    server = await startLoopbackServer({
      [SEARCH]: { status: 400, contentType: 'application/json', body: JSON.stringify(refusal) },
      [`/api/tasks/runs/${RUN_ID}`]: { contentType: 'application/json', body: JSON.stringify({ runId: RUN_ID, type: 'doc-sync', status: 'success', createdAt: '2026-03-01T10:00:00.000Z' }) },
    });
    const result = await orch(['show', RUN_ID], { ORCH_URL: server.url, ORCH_API_KEY: 'cli-fallback-key-0001' });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(`run      ${RUN_ID}`);
    expect(server.received.map((r) => r.url)).toEqual([SEARCH, `/api/tasks/runs/${RUN_ID}`]);
  });
});
