import { describe, expect, it } from 'vitest';
import { milestoneForRun } from '../../src/proof/milestones.js';
import { publicMilestone } from '../../src/proof/proof-feed.js';
import { pickPublic, COUNT, FLAG, oneOf, RATIO, TIMESTAMP, DIGEST } from '../../src/proof/public-fields.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { admittedRun } from '../support/runs.js';

const AT = new Date('2024-05-02T09:00:00.000Z');

function finished(type: string, status: 'success' | 'failed' | 'retrying', patch: Partial<RunRecord> = {}): RunRecord {
  const run = admittedRun({ runId: `${type}-run`, taskId: `${type}-task`, type, internal: type === 'startup', now: AT });
  return { ...run, status, queueState: null, finishedAt: '2024-05-02T09:00:05.000Z', ...patch };
}

describe('milestones of finished runs', () => {
  it('records a startup milestone for a successful start only', () => {
    expect(milestoneForRun(finished('startup', 'success'), AT)).toMatchObject({
      milestoneId: 'startup:startup-run',
      kind: 'startup',
      status: 'completed',
      at: '2024-05-02T09:00:05.000Z',
    });
    expect(milestoneForRun(finished('summarize-content', 'success'), AT)).toBeNull();
  });

  it('leaves drift-repair to the repair loop, which records the verified outcome', () => {
    const verified = finished('drift-repair', 'success', { result: { filesAudited: 12, knowledgePack: { version: 7 } } });
    expect(milestoneForRun(verified, AT)).toBeNull();
    expect(milestoneForRun(finished('drift-repair', 'failed', { error: 'doc-specialist crashed' }), AT)).toBeNull();
  });

  it('records digest deliveries as proof-delivery milestones', () => {
    expect(milestoneForRun(finished('send-digest', 'success'), AT)).toMatchObject({ kind: 'proof-delivery', status: 'completed' });
    expect(milestoneForRun(finished('send-digest', 'failed', { error: 'no notification target configured' }), AT)).toMatchObject({
      kind: 'proof-delivery',
      status: 'failed',
      reason: 'no notification target configured',
    });
  });
});

describe('the public allowlist', () => {
  it('keeps only allowlisted fields whose values pass their rule', () => {
    const picked = pickPublic(
      { kind: 'startup', at: '2024-05-02T09:00:00.000Z', count: 3, ratio: 0.5, flag: true, id: 'ms_0123456789abcdef', secret: 'sk_live_x', extra: 1 },
      { kind: oneOf(['startup']), at: TIMESTAMP, count: COUNT, ratio: RATIO, flag: FLAG, id: DIGEST },
    );
    expect(picked).toEqual({ kind: 'startup', at: '2024-05-02T09:00:00.000Z', count: 3, ratio: 0.5, flag: true, id: 'ms_0123456789abcdef' });
    const rejected = pickPublic(
      { kind: 'startup; token=abc', at: '2024-05-02 /home/x', count: -1, ratio: 2, flag: 'true', id: 'ms_/home/alice' },
      { kind: oneOf(['startup']), at: TIMESTAMP, count: COUNT, ratio: RATIO, flag: FLAG, id: DIGEST },
    );
    expect(rejected).toEqual({});
  });

  it('publishes a stored milestone with a hashed id and a fixed sentence, never its stored text', () => {
    const stored = { milestoneId: 'drift-repair:my-run#1', kind: 'drift-repair', status: 'failed', at: '2024-05-02T09:00:05.000Z', runId: 'my-run', summary: 'crashed in /home/x', reason: 'token abc', filesAudited: 3 };
    const published = publicMilestone(stored)!;
    expect(published).toEqual({
      id: expect.stringMatching(/^ms_[0-9a-f]{16}$/),
      kind: 'drift-repair',
      status: 'failed',
      at: '2024-05-02T09:00:05.000Z',
      summary: 'Documentation drift repair failed.',
      filesAudited: 3,
    });
    expect(publicMilestone({ ...stored, kind: 'other' })).toBeNull();
    expect(publicMilestone(stored)!.id).toBe(published.id);
  });
});
