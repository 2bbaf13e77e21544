import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { apiClient, waitFor, waitForTerminal } from '../support/http.js';
import { RAISED_RATE_LIMITS } from '../support/runtime-service.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { AGENTS_DIR } from '../support/paths.js';

const SUMMARY = 'summarize-content';
const BRIEF = 'control-plane-brief';

/** Runs-list pages of several filter combinations, each read through the response cache. */
const PAGES = {
  all: '/api/tasks/runs',
  withInternal: '/api/tasks/runs?includeInternal=true',
  summaries: `/api/tasks/runs?type=${SUMMARY}`,
  summariesSecondPage: `/api/tasks/runs?type=${SUMMARY}&limit=1&offset=1`,
  briefs: `/api/tasks/runs?type=${BRIEF}`,
  pending: '/api/tasks/runs?status=pending',
  success: '/api/tasks/runs?status=success',
  failed: '/api/tasks/runs?status=failed',
  briefSuccess: `/api/tasks/runs?type=${BRIEF}&status=success`,
  retrying: '/api/tasks/runs?status=retrying',
} as const;
type Page = keyof typeof PAGES;

describe('runs-list pages stay cached under writes that cannot change them', () => {
  let service: ServiceProcess;
  let api: ReturnType<typeof apiClient>;
  let heldTaskId: string;

  beforeAll(async () => {
    service = await startService({
      baseDir: tempDir('orch-run-list-cache-'),
      config: { agentsDir: AGENTS_DIR, schedulerEnabled: false, rateLimits: RAISED_RATE_LIMITS },
    });
    api = apiClient(service.url);
    expect((await api.trigger(SUMMARY, { content: 'First summary.', idempotencyKey: 'rlc-sum-1' })).status).toBe(202);
    const held = await api.trigger(SUMMARY, { content: 'Held for a decision.', requiresApproval: true, idempotencyKey: 'rlc-held' });
    expect(held.status).toBe(202);
    heldTaskId = held.body.taskId;
    expect((await api.trigger(BRIEF, { idempotencyKey: 'rlc-brief-1' })).status).toBe(202);
    expect((await waitForTerminal(api, 'rlc-sum-1')).status).toBe('success');
    expect((await waitForTerminal(api, 'rlc-brief-1')).status).toBe('success');
  }, 60_000);
  afterAll(async () => {
    await service?.kill();
  });

  /**
   * Reads every page until a second read of each is a hit, so every page is cached; returns the
   * bodies. A run's last writes (finalize hooks: incidents, milestones) may still land just after
   * it reads as terminal and legitimately drop a page, so the warm-up waits for them to settle.
   */
  async function warm(): Promise<Record<Page, unknown>> {
    return waitFor(async () => {
      const bodies = {} as Record<Page, unknown>;
      for (const page of Object.keys(PAGES) as Page[]) await api.get(PAGES[page]);
      for (const page of Object.keys(PAGES) as Page[]) {
        const again = await api.get(PAGES[page]);
        if (again.headers.get('x-svc-cache') !== 'hit') return undefined;
        bodies[page] = again.body;
      }
      return bodies;
    }, 15_000, 'every runs-list page cached');
  }

  async function read(page: Page) {
    const res = await api.get(PAGES[page]);
    expect(res.status).toBe(200);
    return { cache: res.headers.get('x-svc-cache'), body: res.body };
  }

  it('a new run carried to success drops its type’s pages (every offset) and its statuses’ pages, and keeps the rest', async () => {
    const before = await warm();
    expect((await api.trigger(SUMMARY, { content: 'Second summary.', idempotencyKey: 'rlc-sum-2' })).status).toBe(202);
    expect((await waitForTerminal(api, 'rlc-sum-2')).status).toBe('success');

    for (const page of ['all', 'withInternal', 'summaries', 'summariesSecondPage', 'success', 'pending'] as const) {
      const now = await read(page);
      expect(now.cache, page).toBe('miss');
    }
    // The new run is on the first page, and it shifted the second page of its type newest-first.
    expect((await read('summaries')).body.items[0].runId).toBe('rlc-sum-2');
    const shifted = (await read('summariesSecondPage')).body;
    expect(shifted.total).toBe((before.summariesSecondPage as { total: number }).total + 1);
    expect(shifted).not.toEqual(before.summariesSecondPage);
    expect((await read('success')).body.items.map((r: { runId: string }) => r.runId)).toContain('rlc-sum-2');

    for (const page of ['briefs', 'failed', 'briefSuccess', 'retrying'] as const) {
      const now = await read(page);
      expect(now.cache, page).toBe('hit');
      expect(now.body, page).toEqual(before[page]);
    }
  });

  it('a rejected held run (pending → failed) drops the pending and failed pages and keeps the success pages', async () => {
    const before = await warm();
    const decided = await api.post(`/api/approvals/${encodeURIComponent(heldTaskId)}/decision`, { decision: 'rejected', note: 'not now' });
    expect(decided.status).toBe(200);

    for (const page of ['all', 'withInternal', 'summaries', 'summariesSecondPage', 'pending', 'failed'] as const) {
      expect((await read(page)).cache, page).toBe('miss');
    }
    expect((await read('pending')).body.items.map((r: { runId: string }) => r.runId)).not.toContain('rlc-held');
    expect((await read('failed')).body.items.map((r: { runId: string }) => r.runId)).toContain('rlc-held');

    for (const page of ['briefs', 'success', 'briefSuccess', 'retrying'] as const) {
      const now = await read(page);
      expect(now.cache, page).toBe('hit');
      expect(now.body, page).toEqual(before[page]);
    }
  });
});

describe('runs-list pages after run retention prunes finished runs', () => {
  let service: ServiceProcess;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    service = await startService({
      baseDir: tempDir('orch-run-list-prune-'),
      // Entries outlive the 10 s retention interval, so only invalidation can make a page miss.
      config: { agentsDir: AGENTS_DIR, schedulerEnabled: false, rateLimits: RAISED_RATE_LIMITS, runRetention: 10, cache: { protectedMaxAgeSeconds: 120 } },
    });
    api = apiClient(service.url);
    for (let i = 0; i < 12; i++) {
      expect((await api.trigger(SUMMARY, { content: `Summary ${i}.`, idempotencyKey: `rlp-${i}` })).status).toBe(202);
    }
    expect((await api.trigger(SUMMARY, { content: 'Held.', requiresApproval: true, idempotencyKey: 'rlp-held' })).status).toBe(202);
    for (let i = 0; i < 12; i++) expect((await waitForTerminal(api, `rlp-${i}`)).status).toBe('success');
  }, 60_000);
  afterAll(async () => {
    await service?.kill();
  });

  it('drops the pages that showed pruned runs and keeps the pending page', async () => {
    // The 10 s retention timer may already have pruned while the runs were set up (a loaded
    // machine): more runs are added until the success page is cached with runs to prune.
    let extra = 0;
    const before = await waitFor(async () => {
      for (const path of [PAGES.success, PAGES.pending]) await api.get(path);
      const success = await api.get(PAGES.success);
      const pending = await api.get(PAGES.pending);
      if (success.headers.get('x-svc-cache') === 'hit' && pending.headers.get('x-svc-cache') === 'hit' && success.body.total > 10) return success.body;
      for (let i = 0; i < 3; i++) {
        const key = `rlp-extra-${extra++}`;
        expect((await api.trigger(SUMMARY, { content: `Extra ${key}.`, idempotencyKey: key })).status).toBe(202);
        expect((await waitForTerminal(api, key)).status).toBe('success');
      }
      return undefined;
    }, 20_000, 'a cached success page with runs beyond retention');
    expect(before.total).toBeGreaterThan(10);
    // Retention runs every 10 s; the success page must move as soon as it has pruned.
    const after = await waitFor(async () => {
      const res = await api.get(PAGES.success);
      return res.body.total < before.total ? res : undefined;
    }, 20_000, 'pruning to reach the cached success page');
    expect(after.headers.get('x-svc-cache')).toBe('miss');
    expect(after.body.total).toBeLessThanOrEqual(10);
    const pending = await api.get(PAGES.pending);
    expect(pending.headers.get('x-svc-cache')).toBe('hit');
    expect(pending.body.items.map((r: { runId: string }) => r.runId)).toEqual(['rlp-held']);
  }, 50_000);
});
