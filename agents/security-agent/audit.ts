import { basename } from 'node:path';
import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneContext, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import { readScopedFile } from '../../src/worker-sdk/workspace-file.js';
import { findDangerousCode } from './code-rules.js';
import { findRiskyDependencies } from './dependency-rules.js';
import { isScriptFile, isShellLike } from './file-kinds.js';
import { SEVERITIES, type Finding, type RankableFinding, type RuleFamily, type Severity } from './finding.js';
import { securityNextActions } from './next-actions.js';
import { findPermissionProblems } from './permission-rules.js';
import { RANKING_BASIS, rankFindings, type RankedFinding } from './rank.js';
import { listScopeFiles, MAX_FILE_BYTES, MAX_FILES, resolveScope } from './scope-files.js';
import { findSecrets } from './secret-rules.js';

/** The audit types of the security-audit schema. */
export type AuditType = NonNullable<LanePayload<'security-audit'>['type']>;

/** The rule families each audit type runs. */
export const FAMILIES_BY_TYPE: Record<AuditType, RuleFamily[]> = {
  scan: ['secret-patterns', 'secret-entropy', 'dangerous-code', 'dependency-declarations', 'file-permissions'],
  secrets: ['secret-patterns', 'secret-entropy', 'file-permissions'],
  code: ['dangerous-code'],
  deps: ['dependency-declarations'],
};

export type SecurityAuditSuccess = LaneResult<{
  success: true;
  type: AuditType;
  scope: string;
  rulesRun: RuleFamily[];
  filesScanned: number;
  skipped: { oversized: number; binary: number; unreadable: number; symlinks: number; hardLinks: number; beyondLimit: number };
  findings: Finding[];
  findingCounts: Record<Severity, number>;
  exploitabilityRanking: RankedFinding[];
  rankingBasis: string[];
}>;

const IDENTITY = { role: 'security-agent', workflowStage: 'security-audit', deliverable: 'ranked security findings' };
/** Enough of a file to tell text from binary, as git does. */
const BINARY_PROBE_BYTES = 8000;

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Does a file matter to any of the families that run? Files no rule reads are not opened. */
function wanted(path: string, families: Set<RuleFamily>): boolean {
  if (families.has('secret-patterns') || families.has('secret-entropy')) return true;
  if (families.has('dangerous-code') && (isScriptFile(path) || isShellLike(path))) return true;
  return families.has('dependency-declarations') && basename(path) === 'package.json';
}

/**
 * The security-audit lane: reads every file of `payload.scope` (dotfiles included,
 * node_modules and .git skipped) and reports secrets, dangerous code, risky dependency
 * declarations and file-mode problems, each with masked evidence, ranked by exploitability.
 */
export function securityAudit(payload: LanePayload<'security-audit'>, context: LaneContext): SecurityAuditSuccess | LaneRefusal {
  const type: AuditType = payload.type ?? 'scan';
  const scope = resolveScope(context.workspaceRoot, payload.scope);
  if (!scope.ok) return refuseLane(IDENTITY, scope.problem, ['Resend with payload.scope naming a folder or file inside the workspace.']);
  const scopeLabel = payload.scope;

  const families = new Set(FAMILIES_BY_TYPE[type]);
  const listing = listScopeFiles(context.workspaceRoot, scope.absolute);
  const skipped = { oversized: listing.oversized, binary: 0, unreadable: 0, symlinks: listing.symlinks, hardLinks: listing.hardLinks, beyondLimit: listing.beyondLimit };
  const findings: RankableFinding[] = [];
  const holdsPrivateKey = new Set<string>();
  let filesScanned = 0;

  for (const file of listing.files) {
    if (!wanted(file.path, families)) continue;
    const read = readScopedFile(context.workspaceRoot, file.path, { maxBytes: MAX_FILE_BYTES });
    if (!read.ok) {
      skipped.unreadable += 1;
      continue;
    }
    const content = read.content;
    if (content.subarray(0, BINARY_PROBE_BYTES).includes(0)) {
      skipped.binary += 1;
      continue;
    }
    filesScanned += 1;
    const text = content.toString('utf8');
    if (families.has('secret-patterns') || families.has('secret-entropy')) {
      const secrets = findSecrets(file.path, text, { patterns: families.has('secret-patterns'), entropy: families.has('secret-entropy') });
      if (secrets.some((f) => f.rule === 'private-key-block')) holdsPrivateKey.add(file.path);
      findings.push(...secrets);
    }
    if (families.has('dangerous-code')) findings.push(...findDangerousCode(file.path, text));
    if (families.has('dependency-declarations')) findings.push(...findRiskyDependencies(file.path, text));
  }
  if (families.has('file-permissions')) findings.push(...findPermissionProblems([...listing.files, ...listing.oversizedFiles], holdsPrivateKey));

  if (filesScanned === 0) {
    const what = type === 'deps' ? 'no package.json' : type === 'code' ? 'no script or shell file' : 'no readable text file';
    return refuseLane(IDENTITY, `scope ${JSON.stringify(scopeLabel)} holds ${what} to audit (${plural(listing.files.length + listing.oversized, 'file')} listed, node_modules and .git skipped)`, [
      'Point payload.scope at the project folder that holds the sources and manifests.',
    ]);
  }

  findings.sort((a, b) => a.file.localeCompare(b.file) || (a.line ?? 0) - (b.line ?? 0) || a.rule.localeCompare(b.rule));
  const ranked = rankFindings(findings);
  const findingCounts = Object.fromEntries(SEVERITIES.map((s) => [s, findings.filter((f) => f.severity === s).length])) as Record<Severity, number>;
  const countText = SEVERITIES.filter((s) => findingCounts[s] > 0).map((s) => `${findingCounts[s]} ${s}`).join(', ');
  const truncated = listing.beyondLimit > 0;

  return {
    success: true,
    type,
    scope: scopeLabel,
    rulesRun: FAMILIES_BY_TYPE[type],
    filesScanned,
    skipped,
    findings: findings.map(({ rule, severity, file, line, evidence }) => ({ rule, severity, file, line, evidence })),
    findingCounts,
    exploitabilityRanking: ranked,
    rankingBasis: RANKING_BASIS,
    operatorSummary:
      `Security ${type} of ${scopeLabel}: ${plural(filesScanned, 'file')} scanned, ${plural(findings.length, 'finding')}` +
      `${countText ? ` (${countText})` : ''}${ranked[0] ? `; most exploitable: ${ranked[0].rule} in ${ranked[0].file}` : ''}` +
      `${truncated ? `; stopped after ${MAX_FILES} files, ${listing.beyondLimit} not read` : ''}.`,
    recommendedNextActions: securityNextActions(findings, ranked, skipped, scopeLabel),
    specialistContract: specialistContract({ ...IDENTITY, status: truncated ? 'partial' : 'completed' }),
  };
}
