import { describe, expect, it } from 'vitest';
import { followUpKey, nightlyBatch } from '../../../src/lanes/nightly-batch/handler.js';
import type { RSSRecord } from '../../../src/domain/orchestrator-state.js';
import { validatePayload } from '../../../src/runtime/payload-validation.js';
import { applyOutcome, freshState, handlerInput } from '../../support/handlers.js';
import { handlerConfig } from '../../support/config.js';

function draft(n: number, relevanceScore: number, extra: Partial<RSSRecord> = {}): RSSRecord {
  return {
    timestamp: '2024-04-30T08:00:00.000Z',
    feedUrl: 'https://feeds.example.test/rss.xml',
    itemTitle: `Item ${n}`,
    itemUrl: `https://news.example.test/${n}`,
    publishedAt: `2024-04-${String(10 + (n % 20)).padStart(2, '0')}T00:00:00.000Z`,
    relevanceScore,
    urgency: relevanceScore >= 70 ? 'high' : relevanceScore >= 40 ? 'medium' : 'low',
    ...extra,
  };
}

describe('nightly-batch handler', () => {
  it('selects high urgency, asks for manual review and offers the top ten as promotions', async () => {
    const drafts = [
      draft(1, 85),
      draft(2, 72),
      draft(3, 55),
      draft(4, 40),
      draft(5, 10, { notes: 'feed: x; manual-review' }),
      ...Array.from({ length: 12 }, (_, i) => draft(100 + i, 5 + i)),
    ];
    const state = { ...freshState(), rssDrafts: drafts };
    const outcome = await nightlyBatch(state, handlerConfig(), handlerInput('nightly-batch'));

    expect(outcome.status).toBe('completed');
    expect(outcome.result).toEqual({ itemsConsidered: 17, selectedForDraft: 2, manualReviewApprovals: 3, promotionApprovals: 10 });
    const followUps = outcome.followUps!;
    expect(followUps).toHaveLength(15);
    expect(followUps.every((f) => f.type === 'community-response')).toBe(true);

    const byUrl = new Map(followUps.map((f) => [f.payload.itemUrl, f.payload]));
    expect(byUrl.get('https://news.example.test/1')).toEqual({
      source: 'nightly-batch',
      itemUrl: 'https://news.example.test/1',
      itemTitle: 'Item 1',
      selectedForDraft: true,
      idempotencyKey: expect.stringMatching(/^nightly-batch:2024-04-30:[0-9a-f]{16}$/),
    });
    for (const n of [3, 4, 5]) {
      // not selected by the batch: the mandatory approval is what selects it
      expect(byUrl.get(`https://news.example.test/${n}`)).toMatchObject({ requiresApproval: true, reviewReason: 'manual-review', selectedForDraft: false });
    }
    // promotions: the ten most relevant of the twelve low drafts (scores 16 down to 7)
    const promoted = followUps.filter((f) => f.payload.reviewReason === 'promotion').map((f) => f.payload.itemUrl);
    expect(promoted).toHaveLength(10);
    expect(promoted).not.toContain('https://news.example.test/100');
    expect(promoted).not.toContain('https://news.example.test/101');
    expect(
      followUps.filter((f) => f.payload.reviewReason === 'promotion').every((f) => f.payload.requiresApproval === true && f.payload.selectedForDraft === false),
    ).toBe(true);

    // every follow-up passes the community-response schema the admission path applies
    for (const f of followUps) expect(validatePayload(f.type, f.payload)).toEqual([]);

    // the queue in state records the selection: selectedForDraft only on the priority leads
    const after = applyOutcome(state, outcome).rssDrafts;
    expect(after.filter((d) => d.selectedForDraft).map((d) => d.itemUrl)).toEqual([
      'https://news.example.test/1',
      'https://news.example.test/2',
    ]);
    expect(after.find((d) => d.itemUrl === 'https://news.example.test/5')).toMatchObject({
      selectedForDraft: false,
      draftDecision: 'manual-review',
    });
    expect(after.filter((d) => d.draftDecision === 'promotion')).toHaveLength(10);
    expect(after.filter((d) => d.draftDecision === 'none').map((d) => d.itemUrl)).toEqual([
      'https://news.example.test/100',
      'https://news.example.test/101',
    ]);
  });

  it('produces the same idempotency keys on a rerun, so reruns are suppressed as duplicates', async () => {
    const state = { ...freshState(), rssDrafts: [draft(1, 90), draft(2, 50), draft(3, 5)] };
    const keys = async () =>
      (await nightlyBatch(state, handlerConfig(), handlerInput('nightly-batch'))).followUps!.map((f) => f.payload.idempotencyKey);
    const first = await keys();
    expect(await keys()).toEqual(first);
    expect(new Set(first).size).toBe(3);
    expect(followUpKey(draft(1, 90))).toBe(first[0]);
  });

  it('clips a feed title or link longer than the community-response schema allows, so the worker accepts the follow-up', async () => {
    const long = draft(1, 90, { itemTitle: 'T'.repeat(800), itemUrl: `https://news.example.test/${'p'.repeat(3000)}` });
    const outcome = await nightlyBatch({ ...freshState(), rssDrafts: [long] }, handlerConfig(), handlerInput('nightly-batch'));
    const [followUp] = outcome.followUps!;
    expect(followUp!.payload).toMatchObject({ itemTitle: 'T'.repeat(500), itemUrl: long.itemUrl.slice(0, 2048) });
    expect(validatePayload(followUp!.type, followUp!.payload)).toEqual([]);
  });

  it('considers each itemUrl once and does nothing without drafts', async () => {
    const dup = { ...freshState(), rssDrafts: [draft(1, 90), draft(1, 90)] };
    expect((await nightlyBatch(dup, handlerConfig(), handlerInput('nightly-batch'))).followUps).toHaveLength(1);
    const empty = await nightlyBatch(freshState(), handlerConfig(), handlerInput('nightly-batch'));
    expect(empty).toMatchObject({ status: 'completed', result: { itemsConsidered: 0, selectedForDraft: 0 }, followUps: [] });
  });
});
