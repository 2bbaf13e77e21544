import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/store/open.js';
import { indexHeldRun } from '../../src/runtime/approval-index.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { tempDir } from '../support/config.js';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS, TEST_WEBHOOK_SECRET } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import { admittedRun } from '../support/runs.js';

const SECRET = 'sk_live_51LeakTestSecretValueZZ';
const TOKEN = 'ghp_LeakTestTokenValue0123456789abcdef';
const CLOUD_KEY = 'AKIALEAKTESTKEY12345';
const PRIVATE_PATH = '/home/alice/private/leak-notes';
const ACTOR = 'secret-actor-label-q7';
const RUN_ID = `leak-run-${TOKEN}`;

/** Every value and protected field name that must never appear in a public body. */
function forbidden(base: string): string[] {
  return [
    ...Object.values(TEST_KEYS),
    TEST_WEBHOOK_SECRET,
    SECRET,
    TOKEN,
    CLOUD_KEY,
    PRIVATE_PATH,
    ACTOR,
    RUN_ID,
    base,
    'leak-held-task',
    'secret-kind',
    'Bearer',
    '"payload"',
    '"result"',
    '"error"',
    '"requestedBy"',
    '"runId"',
    '"taskId"',
    '"milestoneId"',
    '"reason"',
    '"notes"',
    '"draftResponse"',
    '"feedUrl"',
    '"itemUrl"',
    '"itemTitle"',
  ];
}

function seededRun(runId: string, type: string, at: Date, patch: Partial<RunRecord>): RunRecord {
  const run = admittedRun({
    runId,
    taskId: patch.taskId ?? `task-${runId}`,
    type,
    payload: { apiKey: TEST_KEYS.admin, path: PRIVATE_PATH, token: TOKEN, nested: { secret: SECRET } },
    requestedBy: ACTOR,
    now: at,
    approvalRequired: patch.queueState === 'held',
    approvalReason: patch.queueState === 'held' ? `held because ${SECRET}` : null,
  });
  return { ...run, ...patch };
}

/** Seeds runs, approvals, milestones, telemetry and the OrchestratorState with secrets, before the service starts. */
async function seed(base: string): Promise<void> {
  const store = openStateStore(join(base, 'orchestrator', 'data', 'orchestrator-state.json'));
  await store.open();
  const now = new Date();
  const iso = now.toISOString();
  const result = { success: true, apiKey: TEST_KEYS.operator, output: `wrote ${PRIVATE_PATH}/out.txt`, token: TOKEN };
  const runs = [
    seededRun(RUN_ID, 'drift-repair', now, {
      status: 'success',
      queueState: null,
      finishedAt: iso,
      result: { ...result, filesAudited: 3, knowledgePackRegenerated: false, repair: { repairId: TOKEN, status: `failed ${SECRET}` } },
      operatorSummary: `summary with ${CLOUD_KEY}`,
    }),
    seededRun(`${RUN_ID}-failed`, 'community-response', now, {
      status: 'failed',
      queueState: null,
      finishedAt: iso,
      error: `helper crashed reading ${PRIVATE_PATH} with ${SECRET}`,
      result,
    }),
    seededRun(`${RUN_ID}-held`, 'build-refactor', now, { taskId: 'leak-held-task', queueState: 'held' }),
  ];
  for (const run of runs) {
    await store.mutateRun(run.runId, () => run);
    if (run.queueState === 'held') await indexHeldRun(store, run);
  }
  const milestones = [
    { milestoneId: `drift-repair:${RUN_ID}#1`, kind: 'drift-repair', status: 'failed', at: iso, runId: RUN_ID, summary: `failed: ${SECRET}`, reason: PRIVATE_PATH, filesAudited: 4, evidence: { apiKey: TEST_KEYS.admin } },
    { milestoneId: `drift-repair:${RUN_ID}#2`, kind: 'drift-repair', status: 'at-risk', at: `${iso} ${TOKEN}`, runId: RUN_ID, summary: CLOUD_KEY, knowledgePackVersion: TOKEN },
    { milestoneId: TOKEN, kind: `secret-kind-${TOKEN}`, status: 'failed', at: iso, summary: SECRET },
    { milestoneId: `startup:${RUN_ID}`, kind: 'startup', status: `completed ${SECRET}`, at: iso, summary: SECRET },
  ];
  for (const m of milestones) await store.append('milestones', m, 500);
  await store.append('telemetry', { event: 'accepted', runId: RUN_ID, actor: ACTOR, apiKey: TEST_KEYS.viewer, at: iso }, 500);
  await store.mutateState((state) => ({
    ...state,
    lastStartedAt: iso,
    notes: `operator notes ${SECRET} ${PRIVATE_PATH}`,
    docsIndexed: [`${PRIVATE_PATH}/doc.md`],
    taskHistory: [{ type: 'send-digest', status: 'error', timestamp: iso, durationMs: 1, error: `webhook ${TOKEN} refused`, result }],
    rssDrafts: [
      {
        timestamp: iso,
        feedUrl: `https://user:${SECRET}@feeds.example.test/rss?token=${TOKEN}`,
        itemTitle: `Lead mentioning ${CLOUD_KEY}`,
        itemUrl: `https://forum.example.test/${TOKEN}`,
        publishedAt: iso,
        relevanceScore: 90,
        urgency: 'high',
        notes: PRIVATE_PATH,
        selectedForDraft: true,
        draftDecision: 'selected',
      },
    ],
    communityResponses: [
      { timestamp: iso, postId: TOKEN, postTitle: SECRET, subcommunity: ACTOR, draftResponse: `reply with ${TEST_KEYS.admin}`, confidence: 0.5 },
    ],
    deployedAgents: [{ timestamp: iso, agentName: 'x', deployPath: PRIVATE_PATH, metadata: { config: { apiKey: SECRET } } }],
  }));
  await store.close();
}

describe('public proof routes never publish protected data', () => {
  let running: RuntimeService | undefined;
  let base: string;

  beforeAll(async () => {
    base = tempDir('proof-leak-');
    await seed(base);
    // The digest outbox is a folder (the workspace the service creates): the delivery fails.
    running = await startRuntimeService({ notes: `config notes ${SECRET}`, retry: { maxAttempts: 1 }, digestTargetFile: 'workspace' }, base);
    const { api } = running;
    // live runs carrying secrets too: a worker run and a failed digest delivery (a dead-letter milestone)
    const live = await api.trigger('summarize-content', { content: `Rotate ${SECRET} now. Keys live in ${PRIVATE_PATH}. Token ${TOKEN}.`, idempotencyKey: `live-${TOKEN}` });
    await waitForTerminal(api, live.body.runId);
    const digest = await api.trigger('send-digest', { idempotencyKey: `digest-${TOKEN}` });
    await waitForTerminal(api, digest.body.runId);
  });
  afterAll(async () => {
    await running?.service.kill();
  });

  it('answers every public proof route of the OpenAPI document without any seeded secret, path, id or protected field', async () => {
    const { api } = running!;
    const doc = await api.get('/api/openapi.json', null);
    const proofPaths = Object.keys(doc.body.paths).filter((p) => p.startsWith('/api/command-center/') || p.startsWith('/api/milestones/'));
    expect(proofPaths.sort()).toEqual([
      '/api/command-center/control',
      '/api/command-center/demand',
      '/api/command-center/demand-live',
      '/api/command-center/overview',
      '/api/milestones/dead-letter',
      '/api/milestones/latest',
    ]);
    const bad = forbidden(base);
    for (const path of proofPaths) {
      for (const url of [path, `${path}?limit=100`].filter((u) => !u.includes('?') || path.startsWith('/api/milestones/'))) {
        // a miss and a cached hit
        for (let i = 0; i < 2; i += 1) {
          const res = await fetch(`${running!.service.url}${url}`);
          const body = await res.text();
          expect(res.status, url).toBe(200);
          expect(res.headers.get('cache-control'), url).toMatch(/^public/);
          for (const value of bad) expect(body.includes(value), `${url} contains ${value}`).toBe(false);
        }
      }
    }
  });

  it('still publishes the safe facts of the seeded state', async () => {
    const { api } = running!;
    const dead = await waitFor(async () => {
      const res = await api.get('/api/milestones/dead-letter', null);
      return res.body.total >= 3 ? res.body : undefined;
    });
    // the seeded failed and at-risk repairs, the failed live digest; the unknown kind is dropped
    expect(dead.items.map((m: any) => `${m.kind}:${m.status}`)).toEqual(
      expect.arrayContaining(['proof-delivery:failed', 'drift-repair:failed', 'drift-repair:at-risk']),
    );
    const failedRepair = dead.items.find((m: any) => m.kind === 'drift-repair' && m.status === 'failed');
    expect(failedRepair).toEqual({
      id: expect.stringMatching(/^ms_[0-9a-f]{16}$/),
      kind: 'drift-repair',
      status: 'failed',
      at: expect.any(String),
      summary: 'Documentation drift repair failed.',
      filesAudited: 4,
    });
    // a field whose value does not pass its rule is left out, not repaired
    expect(dead.items.find((m: any) => m.status === 'at-risk').at).toBeUndefined();

    const overview = await api.get('/api/command-center/overview', null);
    expect(overview.body.approvals.pending).toBe(1);
    expect(overview.body.runs.failed).toBeGreaterThanOrEqual(2);
    const demand = await api.get('/api/command-center/demand', null);
    expect(demand.body.leads).toMatchObject({ total: 1, high: 1, selectedForDraft: 1 });
    expect(demand.body.community.drafts).toBe(1);
    const control = await api.get('/api/command-center/control', null);
    expect(control.body.lanes.find((l: any) => l.type === 'drift-repair').runs.success).toBe(1);
  });
});
