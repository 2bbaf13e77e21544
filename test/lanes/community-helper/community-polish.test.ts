import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { communityResponse, type CommunityResponseSuccess } from '../../../agents/community-helper/community-response.js';
import { COMMUNITY_RESPONSE_PAYLOAD_KEY, queueItemsOf, type CommunityResponseGate } from '../../../src/worker-sdk/community-response.js';
import type { ChatMessage, ModelAccess } from '../../../src/worker-sdk/model.js';
import { tempDir } from '../../support/config.js';
import { writePackFixture } from '../../support/knowledge-pack.js';
import { scriptedModel } from '../../support/scripted-model.js';

const NOW = new Date('2024-05-02T09:00:00.000Z');
const KEYS_QUESTION = {
  postId: 'p-101',
  title: 'How do I rotate an API key without downtime?',
  body: 'Our old key leaked; we need to replace it and make sure the old one stops working.',
  subcommunity: 'operators',
  selectedForDraft: true,
};

let base: string;
let gate: CommunityResponseGate;
beforeEach(() => {
  base = tempDir('community-polish-');
  const docsPath = join(base, 'workspace', 'docs');
  gate = {
    knowledgePackPath: writePackFixture(join(base, 'logs', 'knowledge-packs'), docsPath),
    docsPath,
    draftsLogPath: join(base, 'logs', 'community-drafts.jsonl'),
    queueLogPath: join(base, 'logs', 'queue-submissions.jsonl'),
    selectedByApproval: [],
    items: queueItemsOf({ items: [KEYS_QUESTION] }).map((i) => ({ itemKey: i.itemKey, gate: 'claimed' as const })),
    budget: { day: '2024-05-02', limit: 50, used: 1, remaining: 49 },
    provider: null,
  };
});

async function respond(model: ModelAccess | undefined): Promise<CommunityResponseSuccess> {
  const result = await communityResponse({ items: [KEYS_QUESTION], [COMMUNITY_RESPONSE_PAYLOAD_KEY]: gate }, { workspaceRoot: base, runId: 'run-polish', model }, () => NOW);
  if (!result.success) throw new Error(`expected drafts: ${result.error}`);
  return result;
}

const logLines = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
/** The draft the lane sent for polish, read back from its prompt. */
const draftIn = (messages: ChatMessage[]) => /Draft reply:\n"""\n([\s\S]*)\n"""/.exec(messages[1]!.content)![1]!;

describe('community-response: optional provider polish of the deterministic draft', () => {
  it('writes the polished reply, keeping the knowledge pack’s facts and citations, and says it was polished', async () => {
    const scripted = scriptedModel(() =>
      'Thanks for asking! Add the new key to API_KEY_ROTATION with a later version, restart the service, then mark the old key inactive: it stops working once inactive. The full steps are in "Rotating API keys" (runbooks/rotate-keys.md).',
    );
    const result = await respond(scripted.model);

    // The deterministic draft (grounded in the pack) is what the model was asked to polish.
    const sent = draftIn(scripted.requests[0]!.messages);
    expect(sent).toContain('runbooks/rotate-keys.md');
    expect(scripted.prompt()).toContain(KEYS_QUESTION.title);
    expect(result.polish).toBe('provider');
    expect(result.generation).toEqual({ path: 'provider', model: 'small-model' });
    expect(result.accountingNote).toContain('polished by small-model');
    const [draft] = logLines(gate.draftsLogPath);
    expect(draft).toMatchObject({ polish: 'provider', citations: [expect.objectContaining({ path: 'runbooks/rotate-keys.md' })] });
    expect(draft!.draftResponse).toContain('API_KEY_ROTATION');
    expect(draft!.draftResponse).toContain('runbooks/rotate-keys.md');
    expect(draft!.draftResponse).not.toBe(sent);
    const [submission] = logLines(gate.queueLogPath);
    expect(submission!.draftResponse).toBe(draft!.draftResponse);
    expect(result.communityRecords[0]!.draftResponse).toBe(draft!.draftResponse);
  });

  it('keeps the deterministic draft when the polish drops a citation, and says why', async () => {
    const result = await respond(scriptedModel(() => 'Just rotate the key through API_KEY_ROTATION and restart.').model);
    expect(result.polish).toBe('unmetered');
    expect(result.generation).toMatchObject({ path: 'deterministic', reason: expect.stringContaining('dropped the citation runbooks/rotate-keys.md') });
    const [draft] = logLines(gate.draftsLogPath);
    expect(draft).toMatchObject({ polish: 'unmetered' });
    expect(draft!.draftResponse).toContain('Thanks for raising "How do I rotate an API key without downtime?"');
    expect(draft!.draftResponse).toContain('"Rotating API keys" (runbooks/rotate-keys.md)');
  });

  it('without a provider or over budget the draft is the deterministic one, with the reason', async () => {
    const over = await respond(scriptedModel(() => ({ refusal: 'budget-exhausted', detail: 'the daily model budget (0.5 USD) cannot cover this call' })).model);
    expect(over.generation).toEqual({ path: 'deterministic', reason: 'budget-exhausted: the daily model budget (0.5 USD) cannot cover this call' });
    expect(over.accountingNote).toContain('no polish applied (budget-exhausted');
    const none = await respond(undefined);
    expect(none.polish).toBe('unmetered');
    expect(none.accountingNote).toBe('unmetered: deterministic drafts from the knowledge pack, no provider call was made');
    expect(none.drafts[0]!.citations).toContain('runbooks/rotate-keys.md');
  });
});
