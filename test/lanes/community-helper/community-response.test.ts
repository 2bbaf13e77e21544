import { mkdirSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { communityResponse, type CommunityResponseSuccess } from '../../../agents/community-helper/community-response.js';
import { draftResponses } from '../../../agents/community-helper/draft-responses.js';
import { matchDocs } from '../../../agents/community-helper/match-docs.js';
import { COMMUNITY_RESPONSE_PAYLOAD_KEY, queueItemsOf, type CommunityResponseGate } from '../../../src/worker-sdk/community-response.js';
import { tempDir } from '../../support/config.js';
import { PACK, writePackFixture } from '../../support/knowledge-pack.js';

const NOW = new Date('2024-05-02T09:00:00.000Z');

const KEYS_QUESTION = {
  postId: 'p-101',
  title: 'How do I rotate an API key without downtime?',
  body: 'Our old key leaked; we need to replace it and make sure the old one stops working.',
  subcommunity: 'operators',
  selectedForDraft: true,
};
const BACKUP_QUESTION = { postId: 'p-102', title: 'Restore from last night backup', body: 'Where is the snapshot kept?', selectedForDraft: true };
const UNSELECTED = { postId: 'p-103', title: 'Rotate keys again?', selectedForDraft: false };
const OFF_TOPIC = { postId: 'p-104', title: 'Favourite pizza toppings', body: 'Pineapple or not?', selectedForDraft: true };

let base: string;
let gate: CommunityResponseGate;

function gateFor(items: Record<string, unknown>[], gates: Record<string, 'claimed' | 'duplicate' | 'over-budget'> = {}): CommunityResponseGate {
  return {
    ...gate,
    items: queueItemsOf({ items })
      .filter((i) => i.selectedForDraft)
      .map((i) => ({ itemKey: i.itemKey, gate: gates[i.postId] ?? 'claimed' })),
  };
}

async function run(items: Record<string, unknown>[], gates: Record<string, 'claimed' | 'duplicate' | 'over-budget'> = {}, now = NOW) {
  return communityResponse({ items, [COMMUNITY_RESPONSE_PAYLOAD_KEY]: gateFor(items, gates) }, { workspaceRoot: base, runId: 'run-cr-1' }, () => now);
}

function drafted(result: Awaited<ReturnType<typeof run>>): CommunityResponseSuccess {
  if (!result.success) throw new Error(`expected drafts, got a refusal: ${result.error}`);
  return result;
}

beforeEach(() => {
  base = tempDir('community-');
  const docsPath = join(base, 'workspace', 'docs');
  const packPath = writePackFixture(join(base, 'logs', 'knowledge-packs'), docsPath);
  gate = {
    knowledgePackPath: packPath,
    docsPath,
    draftsLogPath: join(base, 'logs', 'community-drafts.jsonl'),
    queueLogPath: join(base, 'logs', 'queue-submissions.jsonl'),
    selectedByApproval: [],
    items: [],
    budget: { day: '2024-05-02', limit: 50, used: 2, remaining: 48 },
    provider: null,
  };
});

describe('community-response lane', () => {
  it('drafts selected items from the pack doc that answers them and logs drafts and queue payloads', async () => {
    const result = drafted(await run([KEYS_QUESTION, BACKUP_QUESTION, UNSELECTED]));

    expect(result.postsEvaluated).toBe(3);
    expect(result.draftedResponses).toBe(2);
    expect(result.drafts.map((d) => [d.postTitle, d.citations[0]])).toEqual([
      [KEYS_QUESTION.title, 'runbooks/rotate-keys.md'],
      [BACKUP_QUESTION.title, 'runbooks/backup-restore.md'],
    ]);
    expect(result.skipped).toEqual([{ itemKey: 'post:p-103', title: UNSELECTED.title, reason: 'not-selected' }]);
    expect(result.freshnessWarnings).toEqual([]);
    expect(result.polish).toBe('unmetered');
    expect(result.operatorSummary).toContain('unmetered');
    expect(result.specialistContract).toMatchObject({ role: 'community-helper', status: 'completed', refusalReason: null });
    expect(result.knowledgePack).toMatchObject({ version: 4, docCount: 3, ageHours: 27 });

    const lines = readFileSync(gate.draftsLogPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      postId: 'p-101',
      postTitle: KEYS_QUESTION.title,
      subcommunity: 'operators',
      runId: 'run-cr-1',
      approved: false,
      knowledgePack: { version: 4, packHash: PACK.packHash },
      polish: 'unmetered',
    });
    // the draft says what the runbook says, and where to read more
    expect(lines[0].draftResponse).toContain('add the new key with a later version');
    expect(lines[0].draftResponse).toContain('runbooks/rotate-keys.md');
    expect(lines[0].confidence).toBeGreaterThan(0.3);
    expect(lines[0].confidence).toBeLessThanOrEqual(1);

    const queued = readFileSync(gate.queueLogPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(queued.map((q) => [q.postId, q.status, q.knowledgePackVersion])).toEqual([
      ['p-101', 'awaiting-human-review', 4],
      ['p-102', 'awaiting-human-review', 4],
    ]);
    expect(result.communityRecords.map((r) => r.postId)).toEqual(['p-101', 'p-102']);
  });

  it('never drafts an item the service did not claim for this run (duplicate or over budget)', async () => {
    const result = drafted(await run([KEYS_QUESTION, BACKUP_QUESTION], { 'p-102': 'duplicate' }));
    expect(result.drafts.map((d) => d.itemKey)).toEqual(['post:p-101']);
    expect(result.skipped).toEqual([{ itemKey: 'post:p-102', title: BACKUP_QUESTION.title, reason: 'duplicate' }]);
    expect(result.specialistContract.status).toBe('partial');

    const none = await run([KEYS_QUESTION], { 'p-101': 'over-budget' });
    expect(none).toMatchObject({ success: false, specialistContract: { status: 'refused', refusalReason: 'no selected item could be drafted (over-budget)' } });
  });

  it('warns when the pack is old and when a cited doc changed or vanished after the pack was built', async () => {
    utimesSync(join(gate.docsPath, 'runbooks/rotate-keys.md'), NOW, NOW);
    rmSync(join(gate.docsPath, 'runbooks/backup-restore.md'));
    const later = new Date('2024-05-12T06:00:00.000Z');
    const result = drafted(await run([KEYS_QUESTION, BACKUP_QUESTION], {}, later));
    expect(result.freshnessWarnings).toEqual([
      'knowledge pack v4 is 11 days old (generated 2024-05-01T06:00:00.000Z); run drift-repair to refresh it',
      'cited doc runbooks/rotate-keys.md changed after knowledge pack v4 was generated',
      'cited doc runbooks/backup-restore.md no longer exists in the docs folder',
    ]);
    expect(result.recommendedNextActions.join(' ')).toContain('drift-repair');
    const lines = readFileSync(gate.draftsLogPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0].freshnessWarnings).toHaveLength(2);
  });

  it('refuses clearly when no pack exists, nothing is selected, or nothing in the pack matches', async () => {
    rmSync(gate.knowledgePackPath);
    expect(await run([KEYS_QUESTION])).toMatchObject({
      success: false,
      error: 'knowledge pack missing',
      specialistContract: { status: 'refused', refusalReason: 'knowledge pack missing' },
    });
    writePackFixture(join(base, 'logs', 'knowledge-packs'), gate.docsPath);
    expect(await run([UNSELECTED])).toMatchObject({ success: false, error: 'no queue items with selectedForDraft=true' });
    expect(await run([OFF_TOPIC])).toMatchObject({
      success: false,
      error: 'no knowledge-pack document matches any selected item (pack v4)',
    });
    expect(await communityResponse({ items: [KEYS_QUESTION] }, { workspaceRoot: base, runId: null })).toMatchObject({
      success: false,
      error: expect.stringContaining('coordination outcome missing'),
    });
  });

  it('throws when the drafts log cannot be written, so the worker exits non-zero and the run fails', async () => {
    mkdirSync(gate.draftsLogPath, { recursive: true });
    await expect(run([KEYS_QUESTION])).rejects.toThrow(/EISDIR/);
  });

  it('drafts a review lead the approval selected, though the queue did not', async () => {
    const lead = { source: 'nightly-batch', itemUrl: 'https://forum.example.test/t/9', itemTitle: 'Restore a backup snapshot', selectedForDraft: false, reviewReason: 'promotion' as const };
    const [item] = queueItemsOf(lead);
    const approvedGate = { ...gate, selectedByApproval: [item!.itemKey], items: [{ itemKey: item!.itemKey, gate: 'claimed' as const }] };
    const result = await communityResponse({ ...lead, [COMMUNITY_RESPONSE_PAYLOAD_KEY]: approvedGate }, { workspaceRoot: base, runId: 'approval-replay:t9' }, () => NOW);
    expect(drafted(result).drafts).toEqual([
      { itemKey: item!.itemKey, postTitle: 'Restore a backup snapshot', confidence: expect.any(Number), citations: ['runbooks/backup-restore.md'] },
    ]);
    // without the approval the same lead is not selected
    const unapproved = await communityResponse({ ...lead, [COMMUNITY_RESPONSE_PAYLOAD_KEY]: { ...approvedGate, selectedByApproval: [] } }, { workspaceRoot: base, runId: 'r' }, () => NOW);
    expect(unapproved).toMatchObject({ success: false, error: 'no queue items with selectedForDraft=true' });
  });

  it('reads the single-item form nightly-batch queues', () => {
    const [item] = queueItemsOf({ source: 'nightly-batch', itemUrl: 'https://news.example.test/a', itemTitle: 'Key rotation guide', selectedForDraft: true });
    expect(item).toMatchObject({ title: 'Key rotation guide', url: 'https://news.example.test/a', selectedForDraft: true, subcommunity: 'general' });
    expect(item!.itemKey).toMatch(/^url:[0-9a-f]{24}$/);
  });
});

describe('draftResponses and matchDocs', () => {
  it('ranks the doc whose title and concepts name the subject first, and ignores a doc it merely brushes', () => {
    const matches = matchDocs('429 rate limit: how long should clients wait before retrying?', PACK.docs);
    expect(matches.map((m) => m.doc.path)).toEqual(['guides/rate-limits.md']);
    expect(matchDocs('pizza toppings', PACK.docs)).toEqual([]);
  });

  it('is deterministic: the same queue and pack give the same drafts', () => {
    const items = queueItemsOf({ items: [KEYS_QUESTION, BACKUP_QUESTION] });
    const input = {
      items,
      gate: { ...gate, items: items.map((i) => ({ itemKey: i.itemKey, gate: 'claimed' as const })) },
      pack: { ...PACK },
      docStates: {},
      now: NOW,
      runId: 'r',
    };
    expect(draftResponses(input)).toEqual(draftResponses(input));
  });
});
