import type { CommunityRecord } from '../../src/domain/orchestrator-state.js';
import { isSelected, type CommunityResponseGate, type QueueItem } from '../../src/worker-sdk/community-response.js';
import { composeDraft } from './compose-draft.js';
import { docWarning, packWarnings, type DocState } from './freshness.js';
import type { KnowledgePack } from './knowledge-pack.js';
import { confidenceOf, matchDocs } from './match-docs.js';

export type SkipReason = 'not-selected' | 'duplicate' | 'over-budget' | 'no-match';

/** One line of the community drafts log. */
export type DraftRecord = CommunityRecord & {
  runId: string | null;
  itemKey: string;
  itemUrl: string | null;
  reviewReason: string | null;
  citations: Array<{ path: string; title: string; hash: string; score: number }>;
  knowledgePack: { version: number; packHash: string; generatedAt: string };
  freshnessWarnings: string[];
  /** `unmetered`: the deterministic local text; `provider`: polished by a model through the service (polish.ts). */
  polish: 'unmetered' | 'provider';
};

/** One line of the queue submissions log: what goes to human review, never posted by the lane. */
export interface QueueSubmission {
  submittedAt: string;
  runId: string | null;
  itemKey: string;
  postId: string;
  postTitle: string;
  subcommunity: string;
  itemUrl: string | null;
  draftResponse: string;
  confidence: number;
  status: 'awaiting-human-review';
  knowledgePackVersion: number;
}

export interface DraftOutcome {
  postsEvaluated: number;
  drafts: DraftRecord[];
  submissions: QueueSubmission[];
  skipped: Array<{ itemKey: string; title: string; reason: SkipReason }>;
  freshnessWarnings: string[];
}

export interface DraftInput {
  items: QueueItem[];
  gate: CommunityResponseGate;
  pack: KnowledgePack;
  docStates: Record<string, DocState>;
  now: Date;
  runId: string | null;
}

/**
 * The lane's logic: drafts a reply from the pack for every item that was selected for drafting
 * and claimed for this run by the service (dedupe and budget), and says why each other item was
 * skipped. Freshness warnings name a stale pack and every cited doc changed or gone since.
 */
export function draftResponses(input: DraftInput): DraftOutcome {
  const { items, gate, pack, now, runId } = input;
  const timestamp = now.toISOString();
  const gates = new Map(gate.items.map((g) => [g.itemKey, g.gate]));
  const overall = packWarnings(pack, now);
  const outcome: DraftOutcome = { postsEvaluated: items.length, drafts: [], submissions: [], skipped: [], freshnessWarnings: [...overall] };

  for (const item of items) {
    const skip = (reason: SkipReason) => outcome.skipped.push({ itemKey: item.itemKey, title: item.title, reason });
    if (!isSelected(item, gate.selectedByApproval ?? [])) {
      skip('not-selected');
      continue;
    }
    const itemGate = gates.get(item.itemKey);
    if (itemGate !== 'claimed') {
      // An item the service did not claim for this run is never drafted here.
      skip(itemGate === 'over-budget' ? 'over-budget' : 'duplicate');
      continue;
    }
    const question = `${item.title}\n${item.body}`;
    const matches = matchDocs(question, pack.docs);
    if (matches.length === 0) {
      skip('no-match');
      continue;
    }
    const docWarnings = matches
      .map((m) => docWarning(m.doc.path, input.docStates[m.doc.path], pack))
      .filter((w): w is string => w !== null);
    for (const w of docWarnings) if (!outcome.freshnessWarnings.includes(w)) outcome.freshnessWarnings.push(w);
    const draftResponse = composeDraft(item, matches);
    const confidence = confidenceOf(question, matches[0]);
    outcome.drafts.push({
      timestamp,
      postId: item.postId,
      postTitle: item.title,
      subcommunity: item.subcommunity,
      draftResponse,
      confidence,
      approved: false,
      runId,
      itemKey: item.itemKey,
      itemUrl: item.url,
      reviewReason: item.reviewReason,
      citations: matches.map((m) => ({ path: m.doc.path, title: m.doc.title, hash: m.doc.hash, score: m.score })),
      knowledgePack: { version: pack.version, packHash: pack.packHash, generatedAt: pack.generatedAt },
      freshnessWarnings: [...overall, ...docWarnings],
      polish: 'unmetered',
    });
    outcome.submissions.push({
      submittedAt: timestamp,
      runId,
      itemKey: item.itemKey,
      postId: item.postId,
      postTitle: item.title,
      subcommunity: item.subcommunity,
      itemUrl: item.url,
      draftResponse,
      confidence,
      status: 'awaiting-human-review',
      knowledgePackVersion: pack.version,
    });
  }
  return outcome;
}
