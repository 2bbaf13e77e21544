import { describe, expect, it } from 'vitest';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { createCommunityResponseGate } from '../../src/lanes/community-response/gate.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { fixedClock } from '../support/clocks.js';
import { testConfig } from '../support/config.js';
import { admittedRun } from '../support/runs.js';

function runWith(runId: string, payload: Record<string, unknown>, approvedFromTaskId: string | null = null): RunRecord {
  return admittedRun({ runId, type: 'community-response', payload, now: new Date('2024-05-02T09:00:00.000Z'), approvedFromTaskId });
}

const ITEMS = {
  items: [
    { postId: 'a', title: 'Rotate keys', selectedForDraft: true },
    { postId: 'b', title: 'Restore backup', selectedForDraft: true },
    { postId: 'c', title: 'Not chosen', selectedForDraft: false },
  ],
};

function setup(dailyLlmBudget = 50) {
  const coordination = new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 });
  const clock = fixedClock('2024-05-02T09:00:00.000Z');
  const base = testConfig();
  const config = { ...base, communityResponse: { dailyLlmBudget, dedupeWindowHours: 168 } };
  return { coordination, clock, config, prepare: createCommunityResponseGate({ coordination, clock, config }) };
}

describe('community-response pre-spawn gate', () => {
  it('claims each selected item for the run and charges the daily budget once per claimed item', async () => {
    const { prepare, config } = setup();
    const prepared = await prepare(runWith('r1', ITEMS));
    expect(prepared.blocked).toBeNull();
    expect(prepared.gate.items).toEqual([
      { itemKey: 'post:a', gate: 'claimed' },
      { itemKey: 'post:b', gate: 'claimed' },
    ]);
    expect(prepared.gate.budget).toEqual({ day: '2024-05-02', limit: 50, used: 2, remaining: 48 });
    expect(prepared.gate.knowledgePackPath).toBe(`${config.knowledgePackDir}/latest.json`);
    expect(prepared.gate.draftsLogPath).toBe(config.communityDraftsPath);
    expect(prepared.gate.provider).toBeNull();
  });

  it('finds an item claimed by another run a duplicate, but lets the same run re-take its claim on a retry', async () => {
    const { prepare } = setup();
    await prepare(runWith('r1', ITEMS));
    expect((await prepare(runWith('r1', ITEMS))).gate.items.every((i) => i.gate === 'claimed')).toBe(true);

    const other = await prepare(runWith('r2', { items: [ITEMS.items[0]] }));
    expect(other.gate.items).toEqual([{ itemKey: 'post:a', gate: 'duplicate' }]);
    expect(other.blocked).toBe('shared coordination blocked every selected item: 1 already drafted by another run within the dedupe window');
  });

  it('gives the claims back after a failed attempt, so another run may draft the items', async () => {
    const { prepare } = setup();
    const first = await prepare(runWith('r1', ITEMS));
    await first.release();
    const second = await prepare(runWith('r2', ITEMS));
    expect(second.gate.items.map((i) => i.gate)).toEqual(['claimed', 'claimed']);
  });

  it('stops at the daily budget and blocks a run whose every item is over it', async () => {
    const { prepare } = setup(3);
    const first = await prepare(runWith('r1', ITEMS));
    expect(first.gate.budget).toMatchObject({ used: 2, remaining: 1 });
    const second = await prepare(runWith('r2', { items: [{ postId: 'd', title: 'x', selectedForDraft: true }, { postId: 'e', title: 'y', selectedForDraft: true }] }));
    expect(second.gate.items).toEqual([
      { itemKey: 'post:d', gate: 'claimed' },
      { itemKey: 'post:e', gate: 'over-budget' },
    ]);
    expect(second.gate.budget).toMatchObject({ used: 3, remaining: 0 });
    const third = await prepare(runWith('r3', { items: [{ postId: 'f', title: 'z', selectedForDraft: true }] }));
    expect(third.blocked).toBe('shared coordination blocked every selected item: 1 over the daily LLM budget (3 drafts per UTC day)');
    // the over-budget item was not left claimed: once budget exists again it can be drafted
    const { prepare: tomorrow } = setup(3);
    expect((await tomorrow(runWith('r4', { items: [{ postId: 'e', title: 'y', selectedForDraft: true }] }))).gate.items[0]!.gate).toBe('claimed');
  });

  it('claims nothing and blocks nothing when no item is selected (the lane refuses it)', async () => {
    const { prepare } = setup();
    const prepared = await prepare(runWith('r1', { items: [{ postId: 'c', title: 'Not chosen', selectedForDraft: false }] }));
    expect(prepared.gate.items).toEqual([]);
    expect(prepared.blocked).toBeNull();
  });

  it('selects a review lead only in the replay of its approval', async () => {
    const { prepare } = setup();
    const lead = { itemUrl: 'https://forum.example.test/t/1', itemTitle: 'Backups', selectedForDraft: false, reviewReason: 'manual-review' };
    const held = await prepare(runWith('held', lead));
    expect(held.gate.items).toEqual([]);
    expect(held.gate.selectedByApproval).toEqual([]);

    const replay = await prepare(runWith('approval-replay:t1', lead, 't1'));
    expect(replay.gate.selectedByApproval).toEqual([expect.stringMatching(/^url:/)]);
    expect(replay.gate.items).toEqual([{ itemKey: replay.gate.selectedByApproval[0], gate: 'claimed' }]);
  });
});
