import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_SECRET_MARKER } from '../../src/redaction/known-secrets.js';
import { startComposedService, type ComposedService } from '../support/composed-service.js';
import { apiClient, bodyText, waitFor, waitForTerminal } from '../support/http.js';
import { bearer, TEST_KEYS, TEST_WEBHOOK_SECRET } from '../support/keys.js';

const DATABASE_PASSWORD = 'db-password-e2f4a1';
const KV_PASSWORD = 'kv-password-9c3b77';
const PROVIDER_KEY = 'sk-provider-key-5d8e0f';

/** Every value the service holds secret in this test, by name. */
const SECRETS: Record<string, string> = {
  'operator key': TEST_KEYS.operator,
  'admin key': TEST_KEYS.admin,
  'viewer key': TEST_KEYS.viewer,
  'webhook secret': TEST_WEBHOOK_SECRET,
  'database password': DATABASE_PASSWORD,
  'KV store password': KV_PASSWORD,
  'provider key': PROVIDER_KEY,
};

/** A payload that carries every secret, in text, in a key and in a list. */
function payloadWithSecrets(idempotencyKey: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const all = Object.values(SECRETS);
  return {
    content: `Summarize this: ${all.join(' and ')}.`,
    labels: all,
    [`key-${PROVIDER_KEY}`]: 'named by a secret',
    stderr: all.map((secret) => `worker printed ${secret}`),
    idempotencyKey,
    ...extra,
  };
}

/**
 * The service's own secrets (its keys, the webhook secret, the database and KV store passwords,
 * the provider key) put in payloads, approval notes and cancel reasons are found nowhere a viewer
 * reads them back: run record, runs list, event streams, approvals, run logs, exports.
 */
describe('the service secrets are replaced in what runs keep', () => {
  let svc: ComposedService;
  let api: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    svc = await startComposedService({
      runtime: true,
      config: { stateFile: './state.json' },
      env: {
        DATABASE_URL: `postgresql://orch:${DATABASE_PASSWORD}@127.0.0.1:9/orch`,
        KV_STORE_URL: `redis://:${KV_PASSWORD}@127.0.0.1:9/0`,
        OPENAI_API_KEY: PROVIDER_KEY,
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      },
    });
    api = apiClient(svc.url);
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
  });

  /** Every answer a reader gets back, as text. */
  async function read(path: string, key: string = TEST_KEYS.admin): Promise<string> {
    const res = await fetch(`${svc.url}${path}`, { headers: bearer(key) });
    expect(res.status, path).toBe(200);
    return bodyText(res, 1000);
  }

  function expectNoSecret(where: string, text: string): void {
    for (const [name, secret] of Object.entries(SECRETS)) expect(text.includes(secret), `${name} in ${where}`).toBe(false);
  }

  it('finds none in the run, the lists, the events, the approvals, the logs or the exports', async () => {
    const ran = await api.trigger('summarize-content', payloadWithSecrets('redact-ran'));
    expect(ran.status).toBe(202);
    expect((await waitForTerminal(api, 'redact-ran', 30_000)).status).toBe('success');

    const held = await api.trigger('summarize-content', payloadWithSecrets('redact-held', { requiresApproval: true }));
    expect(held.status).toBe(202);
    const cancelled = await api.trigger('summarize-content', payloadWithSecrets('redact-cancelled', { requiresApproval: true }));
    expect(cancelled.status).toBe(202);
    const pending = await read('/api/approvals/pending');
    expect(pending).toContain('redact-held');
    expectNoSecret('the pending approvals', pending);
    expectNoSecret('the held approval', await read(`/api/approvals/${held.body.taskId}`));

    // Operators' own words land in the run and its events: a rejection note, a cancel reason.
    const note = `rejected, see ${SECRETS['admin key']} ${SECRETS['webhook secret']}`;
    const decided = await api.post(`/api/approvals/${held.body.taskId}/decision`, { decision: 'rejected', note }, TEST_KEYS.admin);
    expect(decided.status).toBe(200);
    expectNoSecret('the decision answer', JSON.stringify(decided.body));
    const reason = `not needed: ${SECRETS['database password']} ${SECRETS['KV store password']} ${SECRETS['provider key']}`;
    expect((await api.post('/api/tasks/runs/redact-cancelled/cancel', { reason })).status).toBe(200);

    const run = await read('/api/tasks/runs/redact-ran', TEST_KEYS.viewer);
    expect(run).toContain(KNOWN_SECRET_MARKER);
    const reads: Array<[string, string]> = [
      ['the run', run],
      ['the rejected run', await read('/api/tasks/runs/redact-held')],
      ['the cancelled run', await read('/api/tasks/runs/redact-cancelled')],
      ['the runs list', await read('/api/tasks/runs?includeInternal=true&limit=200', TEST_KEYS.viewer)],
      ['the run events', await read('/api/tasks/runs/redact-ran/events', TEST_KEYS.viewer)],
      ['the rejected run events', await read('/api/tasks/runs/redact-held/events', TEST_KEYS.viewer)],
      ['the cancelled run events', await read('/api/tasks/runs/redact-cancelled/events', TEST_KEYS.viewer)],
      ['the run logs', await read('/api/tasks/runs/redact-ran/logs', TEST_KEYS.operator)],
      ['the historical runs', await read('/api/persistence/historical?collection=runs', TEST_KEYS.viewer)],
      ['the task history', await read('/api/persistence/historical?collection=taskHistory', TEST_KEYS.viewer)],
      ['the export', await read('/api/persistence/export')],
      ['the dashboard', await read('/api/dashboard/overview', TEST_KEYS.viewer)],
      ['the recent runs brief', await read('/api/companion/runs', TEST_KEYS.viewer)],
    ];
    for (const [where, text] of reads) expectNoSecret(where, text);
    // The run log kept the worker's lines, each secret replaced.
    await waitFor(async () => ((await read('/api/tasks/runs/redact-ran/logs', TEST_KEYS.operator)).includes('worker printed') ? true : undefined));
    // The stored record itself holds none either (what a restart or another instance reads).
    expectNoSecret('the stored records', JSON.stringify(await Promise.all(['redact-ran', 'redact-held', 'redact-cancelled'].map((id) => svc.store.getRun(id)))));
  }, 60_000);

  it("finds none in a schedule's payload, as created or changed", async () => {
    const { idempotencyKey: _key, ...payload } = payloadWithSecrets('unused');
    const created = await api.post('/api/schedules', { id: 'redact-schedule', cron: '0 0 1 1 *', type: 'summarize-content', payload, enabled: false });
    expect(created.status).toBe(201);
    expectNoSecret('the schedule created', JSON.stringify(created.body));
    const changed = await api.patch('/api/schedules/redact-schedule', { payload: { ...payload, content: `again ${SECRETS['operator key']}` } });
    expect(changed.status).toBe(200);
    expectNoSecret('the schedule changed', JSON.stringify(changed.body));
    expectNoSecret('the schedule', await read('/api/schedules/redact-schedule', TEST_KEYS.viewer));
    expectNoSecret('the schedules list', await read('/api/schedules', TEST_KEYS.viewer));
    expect(await read('/api/schedules/redact-schedule', TEST_KEYS.viewer)).toContain(KNOWN_SECRET_MARKER);
  });
});
