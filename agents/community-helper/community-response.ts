import { appendFileNoFollow } from '../../src/workspace/file-writes.js';
import { basename, dirname } from 'node:path';
import { displayPath, type DisplayRoots } from '../../src/common/display-path.js';
import {
  COMMUNITY_RESPONSE_PAYLOAD_KEY,
  isSelected,
  queueItemsOf,
  type CommunityResponseGate,
} from '../../src/worker-sdk/community-response.js';
import { displayText } from '../../src/worker-sdk/display-text.js';
import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneContext, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import type { CommunityRecord } from '../../src/domain/orchestrator-state.js';
import { draftResponses, type DraftOutcome } from './draft-responses.js';
import { docStates, packAgeHours } from './freshness.js';
import { readKnowledgePack } from './knowledge-pack.js';
import { polishDrafts } from './polish.js';
import type { Generation } from '../../src/worker-sdk/model.js';

const IDENTITY = { role: 'community-helper', workflowStage: 'draft', deliverable: 'community reply drafts' };
const UNMETERED = 'unmetered: deterministic drafts from the knowledge pack, no provider call was made';

export type CommunityResponseSuccess = LaneResult<{
  success: true;
  postsEvaluated: number;
  draftedResponses: number;
  draftsLogPath: string;
  queueLogPath: string;
  drafts: Array<{ itemKey: string; postTitle: string; confidence: number; citations: string[] }>;
  skipped: DraftOutcome['skipped'];
  knowledgePack: { version: number; generatedAt: string; packHash: string; ageHours: number; docCount: number };
  freshnessWarnings: string[];
  budget: CommunityResponseGate['budget'];
  /** `provider` when at least one draft was polished by a model; `generation` says which, or why none was. */
  polish: 'unmetered' | 'provider';
  generation: Generation;
  accountingNote: string;
  /** The CommunityRecords the service keeps in state (last 100). */
  communityRecords: CommunityRecord[];
}>;

export type CommunityResponseRefusal = LaneRefusal & { skipped?: DraftOutcome['skipped']; freshnessWarnings?: string[] };

function gateOf(payload: LanePayload<'community-response'>): CommunityResponseGate | null {
  const gate = payload[COMMUNITY_RESPONSE_PAYLOAD_KEY];
  if (typeof gate !== 'object' || gate === null) return null;
  const g = gate as CommunityResponseGate;
  return typeof g.knowledgePackPath === 'string' && typeof g.draftsLogPath === 'string' && Array.isArray(g.items) ? g : null;
}

/**
 * The folders the result names files in. The gate carries no logs folder of its own, but the
 * service always puts the queue log at `<logsDir>/queue-submissions.jsonl`
 * (src/runtime/community-response-gate.ts), so its folder is the logs folder.
 */
function displayRootsOf(gate: CommunityResponseGate, context: LaneContext): DisplayRoots {
  return { workspaceRoot: context.workspaceRoot, logsDir: dirname(gate.queueLogPath) };
}

/**
 * Runs file work whose failure ends the run: the error is rethrown with its paths written as
 * results name them (the code, e.g. EISDIR, kept), since its message becomes the run's error.
 */
async function rethrowingWithDisplayedPaths<T>(roots: DisplayRoots, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw new Error(displayText(err instanceof Error ? err.message : String(err), roots), { cause: err });
  }
}

/** Appends to a log of the logs folder, never through a link planted under its name. */
async function appendLines(path: string, records: unknown[]): Promise<void> {
  if (records.length === 0) return;
  await appendFileNoFollow(path, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

function actionsFor(outcome: DraftOutcome): string[] {
  const actions = ['Review the drafts in the community drafts log; nothing is posted until a person approves it.'];
  if (outcome.freshnessWarnings.length > 0) actions.push('Run drift-repair to refresh the knowledge pack, then redraft the warned items.');
  if (outcome.skipped.some((s) => s.reason === 'no-match')) actions.push('Answer the unmatched items by hand or document their subject, then redraft.');
  if (outcome.skipped.some((s) => s.reason === 'over-budget')) actions.push('Trigger the over-budget items after the UTC day rolls over, or raise communityResponse.dailyLlmBudget.');
  return actions;
}

/**
 * The community-response lane: drafts replies from the newest knowledge pack for the queue
 * items with selectedForDraft=true that the service claimed for this run, appends each draft to
 * the community drafts log and its queue payload to the queue submissions log. An exception
 * (an unwritable log, say) propagates: the worker exits non-zero and the run fails.
 */
export async function communityResponse(
  payload: LanePayload<'community-response'>,
  context: LaneContext,
  now: () => Date = () => new Date(),
): Promise<CommunityResponseSuccess | CommunityResponseRefusal> {
  const gate = gateOf(payload);
  if (!gate) {
    return refuseLane(IDENTITY, 'coordination outcome missing: community-response runs only when the service spawns it', [
      'Trigger community-response through POST /api/tasks/trigger.',
    ]);
  }
  const items = queueItemsOf(payload);
  if (!items.some((i) => isSelected(i, gate.selectedByApproval ?? []))) {
    return refuseLane(IDENTITY, 'no queue items with selectedForDraft=true', [
      'Let nightly-batch select priority leads, or approve a review lead so its replay drafts it.',
    ]);
  }
  const roots = displayRootsOf(gate, context);
  const read = await rethrowingWithDisplayedPaths(roots, () => readKnowledgePack(gate.knowledgePackPath));
  if (!read.ok) {
    return refuseLane(IDENTITY, read.reason, ['Run drift-repair to generate a knowledge pack, then trigger community-response again.']);
  }
  const { pack } = read;
  const at = now();
  const outcome = draftResponses({ items, gate, pack, docStates: await docStates(pack, gate.docsPath), now: at, runId: context.runId });
  if (outcome.drafts.length === 0) {
    const reasons = [...new Set(outcome.skipped.map((s) => s.reason))].join(', ');
    const reason =
      outcome.skipped.every((s) => s.reason === 'no-match' || s.reason === 'not-selected')
        ? `no knowledge-pack document matches any selected item (pack v${pack.version})`
        : `no selected item could be drafted (${reasons})`;
    return { ...refuseLane(IDENTITY, reason, actionsFor(outcome)), skipped: outcome.skipped, freshnessWarnings: outcome.freshnessWarnings };
  }
  // Drafts exist: the model may polish them before anything is written.
  const polish = await polishDrafts(outcome, items, context.model);
  const accountingNote =
    polish.generation.path === 'provider'
      ? `metered: ${polish.polished} of ${outcome.drafts.length} draft(s) polished by ${polish.generation.model} through the service`
      : /^(no-provider|no model channel|lane-not-allowed)/.test(polish.generation.reason)
        ? UNMETERED
        : `deterministic drafts from the knowledge pack; no polish applied (${polish.generation.reason})`;
  await rethrowingWithDisplayedPaths(roots, async () => {
    await appendLines(gate.draftsLogPath, outcome.drafts);
    await appendLines(gate.queueLogPath, outcome.submissions);
  });

  const partial = outcome.skipped.some((s) => s.reason !== 'not-selected');
  const warned = outcome.freshnessWarnings.length > 0 ? ` ${outcome.freshnessWarnings.length} knowledge-freshness warning(s).` : '';
  return {
    success: true,
    postsEvaluated: outcome.postsEvaluated,
    draftedResponses: outcome.drafts.length,
    draftsLogPath: displayPath(gate.draftsLogPath, roots),
    queueLogPath: displayPath(gate.queueLogPath, roots),
    drafts: outcome.drafts.map((d) => ({ itemKey: d.itemKey, postTitle: d.postTitle, confidence: d.confidence, citations: d.citations.map((c) => c.path) })),
    skipped: outcome.skipped,
    knowledgePack: { version: pack.version, generatedAt: pack.generatedAt, packHash: pack.packHash, ageHours: packAgeHours(pack, at), docCount: pack.docs.length },
    freshnessWarnings: outcome.freshnessWarnings,
    budget: gate.budget,
    polish: polish.generation.path === 'provider' ? 'provider' : 'unmetered',
    generation: polish.generation,
    accountingNote,
    communityRecords: outcome.drafts.map((d) => ({
      timestamp: d.timestamp,
      postId: d.postId,
      postTitle: d.postTitle,
      subcommunity: d.subcommunity,
      draftResponse: d.draftResponse,
      confidence: d.confidence,
      approved: false,
    })),
    operatorSummary:
      `Drafted ${outcome.drafts.length} of ${outcome.postsEvaluated} item(s) from knowledge pack v${pack.version} into ${basename(gate.draftsLogPath)}` +
      `${outcome.skipped.length > 0 ? `; skipped ${outcome.skipped.length}` : ''}; ${accountingNote}.${warned}`,
    recommendedNextActions: actionsFor(outcome),
    specialistContract: specialistContract({ ...IDENTITY, status: partial ? 'partial' : 'completed' }),
  };
}
