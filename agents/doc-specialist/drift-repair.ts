import { isAbsolute, posix } from 'node:path';
import { displayPath } from '../../src/common/display-path.js';
import { buildIndex } from '../../src/knowledge/build-index.js';
import { contradictionsOf, docFreshness } from '../../src/knowledge/diagnostics.js';
import { readKnowledgeIndex } from '../../src/knowledge/index-file.js';
import type { IndexedDoc, KnowledgeIndex } from '../../src/knowledge/index-model.js';
import { readLatestPack } from '../../src/knowledge/pack.js';
import { packDrift, regeneratePack } from '../../src/knowledge/pack-builder.js';
import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneContext, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';

/** Where the service keeps docs, packs and the index; handed over under a `__` key clients cannot send. */
export interface KnowledgeLocations {
  docsPath: string;
  knowledgePackDir: string;
  logsDir: string;
}

export type DriftRepairPayload = LanePayload<'drift-repair'>;

/** The locations under `__knowledge`, when the service sent all three. */
function knowledgeLocationsOf(payload: DriftRepairPayload): KnowledgeLocations | null {
  const where = payload.__knowledge;
  if (typeof where !== 'object' || where === null) return null;
  const { docsPath, knowledgePackDir, logsDir } = where as Record<string, unknown>;
  if (typeof docsPath !== 'string' || typeof knowledgePackDir !== 'string' || typeof logsDir !== 'string') return null;
  return { docsPath, knowledgePackDir, logsDir };
}

export type AuditStatus = 'added' | 'modified' | 'unchanged' | 'removed' | 'missing';

export interface PathAudit {
  path: string;
  status: AuditStatus;
  hash: string | null;
  packedHash: string | null;
  title: string | null;
  freshness: string | null;
  brokenLinks: string[];
  contradictionKeys: string[];
}

export type DriftRepairSuccess = LaneResult<{
  success: true;
  filesAudited: number;
  driftDetected: boolean;
  knowledgePackRegenerated: true;
  knowledgePackPath: string;
  knowledgePack: { version: number; path: string; latestPath: string; packHash: string; docCount: number };
  verification: { verified: boolean; mode: string; checkedDocs: number; problems: string[]; summary: string };
  audit: PathAudit[];
  agentAuditResult: { requestedBy: string | null; notes: string | null; drifted: string[]; unchanged: string[]; contradictions: number };
}>;

const IDENTITY = { role: 'doc-specialist', workflowStage: 'drift-repair', deliverable: 'verified knowledge pack' };

function normalizeDocPath(raw: string): string | null {
  if (raw.includes('\0') || isAbsolute(raw)) return null;
  const normalized = posix.normalize(raw.replace(/\\/g, '/')).replace(/^\.\//, '');
  return normalized === '.' || normalized === '..' || normalized.startsWith('../') ? null : normalized;
}

function auditPath(path: string, index: KnowledgeIndex, docs: Map<string, IndexedDoc>, packed: Map<string, string>, now: Date, workspaceRoot: string, docsPath: string, contradictionKeys: Map<string, string[]>): PathAudit {
  const doc = docs.get(path);
  const packedHash = packed.get(path) ?? null;
  const status: AuditStatus = doc ? (packedHash === null ? 'added' : packedHash === doc.hash ? 'unchanged' : 'modified') : packedHash !== null ? 'removed' : 'missing';
  const docPaths = new Set(docs.keys());
  return {
    path,
    status,
    hash: doc?.hash ?? null,
    packedHash,
    title: doc?.title ?? null,
    freshness: doc ? docFreshness(index, doc, now, { docsPath, workspaceRoot }).status : null,
    brokenLinks: doc ? doc.links.filter((l) => l.kind === 'doc' && l.resolved !== null && !docPaths.has(l.resolved)).map((l) => l.target) : [],
    contradictionKeys: contradictionKeys.get(path) ?? [],
  };
}

/**
 * drift-repair: audits the drifted doc paths against the latest knowledge pack (added, modified,
 * removed, freshness, broken links, contradictions they take part in), regenerates the next
 * pack version from the docs as they are now and verifies it. A fresh pack is written whether or
 * not drift was found; the run succeeds only when the pack verifies.
 */
export async function driftRepair(payload: DriftRepairPayload, context: LaneContext, now: Date = new Date()): Promise<DriftRepairSuccess | LaneRefusal> {
  const where = knowledgeLocationsOf(payload);
  if (!where) {
    return refuseLane(IDENTITY, 'the service did not hand the lane its docs and knowledge-pack folders', ['Run drift-repair through the orchestrator, which passes them.']);
  }
  const requested = payload.paths ?? [];
  const outside = requested.filter((p) => normalizeDocPath(p) === null);
  if (outside.length > 0) {
    return refuseLane(IDENTITY, `paths must be relative to the docs folder and stay inside it: ${outside.slice(0, 5).join(', ')}`, [
      'Send doc paths relative to docsPath.',
    ]);
  }
  const paths = { docsPath: where.docsPath, workspaceRoot: context.workspaceRoot, knowledgePackDir: where.knowledgePackDir };
  const previous = await readKnowledgeIndex(where.logsDir);
  const { index } = await buildIndex(previous, { docsPath: where.docsPath, workspaceRoot: context.workspaceRoot, now });
  if (!index.docsFolderExists) {
    return refuseLane(IDENTITY, 'the docs folder does not exist, so there is nothing to repair or pack', ['Create the docs folder (config docsPath) or fix its path.']);
  }
  if (index.docs.length === 0) {
    return refuseLane(IDENTITY, 'the docs folder holds no Markdown or text docs, so no knowledge pack can be built', ['Add docs under docsPath.']);
  }

  const latest = await readLatestPack(where.knowledgePackDir);
  const packed = new Map((latest?.docs ?? []).map((d) => [String(d.docPath ?? d.path), d.hash]));
  const docs = new Map(index.docs.map((d) => [d.path, d]));
  const drift = packDrift(latest, index.docs);
  const driftedAll = [...drift.added, ...drift.modified, ...drift.removed].sort();
  const contradictions = contradictionsOf(index.docs);
  const contradictionKeys = new Map<string, string[]>();
  for (const signal of contradictions) {
    for (const v of signal.values) for (const s of v.statements) contradictionKeys.set(s.path, [...new Set([...(contradictionKeys.get(s.path) ?? []), signal.key])]);
  }
  // Without named paths the lane audits everything that drifted from the last pack.
  const toAudit = requested.length > 0 ? [...new Set(requested.map((p) => normalizeDocPath(p)!))].sort() : driftedAll;
  const audit = toAudit.map((p) => auditPath(p, index, docs, packed, now, context.workspaceRoot, where.docsPath, contradictionKeys));
  const driftDetected = latest === null || driftedAll.length > 0;

  const { written, verification } = await regeneratePack(index, paths, now, {
    source: 'drift-repair',
    runId: context.runId,
    repairPaths: toAudit.slice(0, 500),
  });
  const drifted = audit.filter((a) => a.status !== 'unchanged').map((a) => a.path);
  // The pack lives in the service's logs folder (or wherever knowledgePackDir points): named as results name files.
  const roots = { workspaceRoot: context.workspaceRoot, logsDir: where.logsDir };
  const packPath = displayPath(written.path, roots);
  const knowledgePack = { version: written.version, path: packPath, latestPath: displayPath(written.latestPath, roots), packHash: written.packHash, docCount: written.docCount };
  const actions = [
    ...(verification.verified ? [] : ['Re-run drift-repair once the docs stop changing; the pack did not match its sources.']),
    ...(contradictions.length > 0 ? [`Resolve ${contradictions.length} contradicting statement(s) across docs (${contradictions.slice(0, 3).map((c) => c.key).join(', ')}).`] : []),
    ...(audit.some((a) => a.brokenLinks.length > 0) ? ['Fix the broken doc links listed in the audit.'] : []),
    ...(audit.some((a) => a.freshness === 'stale') ? ['Update the stale docs: files they describe changed after them.'] : []),
  ];
  if (!verification.verified) {
    return {
      success: false,
      error: verification.summary,
      operatorSummary: `Knowledge pack v${written.version} was written but did not verify: ${verification.summary}`,
      recommendedNextActions: actions,
      specialistContract: specialistContract({ ...IDENTITY, status: 'escalated', escalationReason: verification.summary }),
    };
  }
  return {
    success: true,
    filesAudited: audit.length,
    driftDetected,
    knowledgePackRegenerated: true,
    knowledgePackPath: packPath,
    knowledgePack,
    verification,
    audit: audit.slice(0, 500),
    agentAuditResult: {
      requestedBy: payload.requestedBy ?? null,
      notes: payload.notes ?? null,
      drifted,
      unchanged: audit.filter((a) => a.status === 'unchanged').map((a) => a.path),
      contradictions: contradictions.length,
    },
    operatorSummary: `Audited ${audit.length} doc path(s), ${drifted.length} drifted; knowledge pack v${written.version} (${written.docCount} docs) written and verified.`,
    recommendedNextActions: actions.length > 0 ? actions : ['No action needed: the knowledge pack matches the docs.'],
    specialistContract: specialistContract(IDENTITY),
  };
}
