import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/config.js';
import { waitFor, waitForTerminal } from '../../support/http.js';
import { TEST_KEYS } from '../../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';
import { startLoopbackServer, type LoopbackServer } from '../../support/loopback-server.js';
import { writePackFixture } from '../../support/knowledge-pack.js';

const AGENTS = join(import.meta.dirname, '..', '..', '..', 'agents');

/** An RSS feed of three fresh leads: one high urgency, one medium (manual review), one low (promotion). */
function feedXml(now: Date): string {
  const pub = new Date(now.getTime() - 3_600_000).toUTCString();
  const item = (title: string, path: string) =>
    `<item><title>${title}</title><link>https://community.example.test/${path}</link><pubDate>${pub}</pubDate><description>${title}</description></item>`;
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>Forum</title>
${item('API key rotation and key expiry questions', 'keys')}
${item('Backup question after upgrade', 'backup')}
${item('Where are the nightly snapshots kept for restore?', 'snapshots')}
</channel></rss>`;
}

function lines(path: string): Array<Record<string, any>> {
  return readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

describe('community-response lane through the service', () => {
  let running: RuntimeService | undefined;
  let feeds: LoopbackServer | undefined;
  let base: string;

  beforeAll(async () => {
    base = tempDir('community-it-');
    writePackFixture(join(base, 'logs', 'knowledge-packs'), join(base, 'workspace', 'docs'));
    feeds = await startLoopbackServer({ '/forum.xml': { body: feedXml(new Date()) } });
    writeFileSync(
      join(base, 'feeds.json'),
      JSON.stringify({ feeds: [{ url: `${feeds.url}/forum.xml`, name: 'Forum' }], keywords: ['api key', 'rotation', 'expiry', 'backup'] }),
    );
    // The feed server is on loopback, which the operator allows on purpose.
    running = await startRuntimeService({ agentsDir: AGENTS, rssConfigPath: 'feeds.json', rssAllowPrivateHosts: true }, base);
  });
  afterAll(async () => {
    await running?.service.kill();
    await feeds?.close();
  });

  it('drafts a triggered item from the pack with a spawned worker, and blocks a second run of the same item', async () => {
    const { api } = running!;
    const payload = { items: [{ postId: 'p-7', title: 'How do I rotate an API key?', subcommunity: 'operators', selectedForDraft: true }] };
    const res = await api.trigger('community-response', payload);
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, res.body.runId);

    expect(run.status).toBe('success');
    expect(run.result).toMatchObject({ success: true, postsEvaluated: 1, draftedResponses: 1, polish: 'unmetered', knowledgePack: { version: 4 } });
    expect(run.result.drafts[0].citations).toEqual(['runbooks/rotate-keys.md']);
    expect(run.specialistContract).toMatchObject({ role: 'community-helper', status: 'completed' });
    expect(run.operatorSummary).toContain('unmetered');
    expect(run.recommendedNextActions.length).toBeGreaterThan(0);
    const drafts = lines(join(base, 'logs', 'community-drafts.jsonl'));
    expect(drafts.map((d) => [d.postId, d.runId])).toEqual([['p-7', res.body.runId]]);
    expect(drafts[0]!.draftResponse).toContain('API_KEY_ROTATION');
    expect(lines(join(base, 'logs', 'queue-submissions.jsonl'))[0]).toMatchObject({ postId: 'p-7', status: 'awaiting-human-review' });

    // the same item again, from another run: the shared dedupe claim blocks it before any spawn
    const again = await api.trigger('community-response', payload);
    const blocked = await waitForTerminal(api, again.body.runId);
    expect(blocked.status).toBe('failed');
    expect(blocked.failureReason).toBe('coordination-blocked');
    expect(blocked.error).toContain('already drafted by another run');
    expect(blocked.queueAttempts.map((a: { state: string }) => a.state)).toContain('coordination-blocked');
    expect(lines(join(base, 'logs', 'community-drafts.jsonl'))).toHaveLength(1);
  });

  it('feeds rss-sweep leads through nightly-batch: priority drafted, review leads held, an approved promotion replayed into drafts', async () => {
    const { api } = running!;
    const sweep = await waitForTerminal(api, (await api.trigger('rss-sweep', {})).body.runId);
    expect(sweep.status).toBe('success');
    expect(sweep.result.result).toMatchObject({ entriesScored: 3, newDrafts: 3, highPriorityItemsCount: 1 });

    const batch = await waitForTerminal(api, (await api.trigger('nightly-batch', {})).body.runId);
    expect(batch.status).toBe('success');
    expect(batch.result.result).toEqual({ itemsConsidered: 3, selectedForDraft: 1, manualReviewApprovals: 1, promotionApprovals: 1 });

    // the priority lead is drafted without a person
    const selected = await waitFor(async () => {
      const runs = await api.get('/api/tasks/runs?type=community-response&limit=50');
      const found = runs.body.items.find((r: any) => r.runId.startsWith('nightly-batch:') && (r.status === 'success' || r.status === 'failed'));
      return found;
    });
    expect(selected.status).toBe('success');
    expect(selected.result.drafts[0].postTitle).toBe('API key rotation and key expiry questions');

    // the review leads wait as approvals: one mandatory, one optional promotion
    const pending = await waitFor(async () => {
      const res = await api.get('/api/approvals/pending', TEST_KEYS.operator);
      return res.body.count === 2 ? res.body.pending : undefined;
    });
    const promotion = pending.find((p: any) => p.impact.approvalReason.startsWith('optional promotion'));
    const manual = pending.find((p: any) => p.impact.approvalReason.startsWith('manual-review'));
    expect(promotion.type).toBe('community-response');
    expect(manual.impact.caveats[0]).toContain('Mandatory review');

    const decision = await api.post(`/api/approvals/${promotion.taskId}/decision`, { decision: 'approved' });
    expect(decision.status).toBe(200);
    expect(decision.body.replayRunId).toBe(`approval-replay:${promotion.taskId}`);
    const replay = await waitForTerminal(api, decision.body.replayRunId);
    expect(replay.status).toBe('success');
    expect(replay.approvedFromTaskId).toBe(promotion.taskId);
    expect(replay.result.drafts[0]).toMatchObject({
      postTitle: 'Where are the nightly snapshots kept for restore?',
      citations: ['runbooks/backup-restore.md'],
    });

    // drafts: the triggered item, the priority lead, the promoted lead; never the undecided manual-review lead
    const titles = lines(join(base, 'logs', 'community-drafts.jsonl')).map((d) => d.postTitle);
    expect(titles).toHaveLength(3);
    expect(titles).not.toContain('Backup question after upgrade');

    // the public demand feed sees the leads, the selection and the drafts kept in state
    const demand = await waitFor(async () => {
      const res = await api.get('/api/command-center/demand', null);
      return res.body.community?.drafts === 3 ? res.body : undefined;
    });
    expect(demand.leads).toMatchObject({ total: 3, high: 1, selectedForDraft: 1, awaitingReview: 2 });
  });

  it('shows the startup milestone in the public milestone feed', async () => {
    const res = await running!.api.get('/api/milestones/latest', null);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/public/);
    const startup = res.body.milestones.find((m: any) => m.kind === 'startup');
    expect(startup).toMatchObject({ status: 'completed', summary: 'Service started; configuration loaded and state initialized.' });
    expect(startup.id).toMatch(/^ms_[0-9a-f]{16}$/);
  });
});
