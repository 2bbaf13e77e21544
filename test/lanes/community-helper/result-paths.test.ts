import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { communityResponse } from '../../../agents/community-helper/community-response.js';
import { COMMUNITY_RESPONSE_PAYLOAD_KEY, queueItemsOf, type CommunityResponseGate } from '../../../src/worker-sdk/community-response.js';
import { writePackFixture } from '../../support/knowledge-pack.js';

const QUESTION = { postId: 'p-1', title: 'How do I rotate an API key without downtime?', body: 'The old key leaked.', selectedForDraft: true };

describe('community-response result paths', () => {
  let base: string;
  let gate: CommunityResponseGate;
  const run = () =>
    communityResponse({ items: [QUESTION], [COMMUNITY_RESPONSE_PAYLOAD_KEY]: gate }, { workspaceRoot: join(base, 'workspace'), runId: 'run-1' }, () => new Date('2024-05-02T09:00:00Z'));

  beforeEach(() => {
    // As the service lays them out: the workspace and the logs folder side by side.
    base = mkdtempSync(join(tmpdir(), 'community-paths-'));
    const docsPath = join(base, 'workspace', 'docs');
    gate = {
      knowledgePackPath: writePackFixture(join(base, 'logs', 'knowledge-packs'), docsPath),
      docsPath,
      draftsLogPath: join(base, 'logs', 'community-drafts.jsonl'),
      queueLogPath: join(base, 'logs', 'queue-submissions.jsonl'),
      selectedByApproval: [],
      items: queueItemsOf({ items: [QUESTION] }).map((i) => ({ itemKey: i.itemKey, gate: 'claimed' as const })),
      budget: { day: '2024-05-02', limit: 50, used: 1, remaining: 49 },
      provider: null,
    };
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('names the logs it wrote as logs/<file>', async () => {
    const result = await run();
    expect(result).toMatchObject({ success: true, draftsLogPath: 'logs/community-drafts.jsonl', queueLogPath: 'logs/queue-submissions.jsonl' });
    expect(JSON.stringify(result)).not.toContain(base);
  });

  it('names a log outside the logs folder by its file name only', async () => {
    gate.draftsLogPath = join(base, 'elsewhere', 'drafts.jsonl');
    expect(await run()).toMatchObject({ success: true, draftsLogPath: 'outside:drafts.jsonl' });
  });

  it('fails with an error that keeps its code and names the log relative', async () => {
    mkdirSync(gate.draftsLogPath, { recursive: true });
    const failure = await run().catch((err: Error) => err);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/EISDIR.*logs\/community-drafts\.jsonl/);
    expect((failure as Error).message).not.toContain(base);
  });
});
