import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneContext, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import { resolveScope } from '../../src/worker-sdk/scope-path.js';
import { dependencyChecks, licenceChecks, notReadCheck, readmeCheck, type ComplianceCheck, type ProjectLicence } from './checks.js';
import { dependencyLicences, type DependencyLicence } from './dependencies.js';
import { categoryOf, declaredLicence } from './licence-kinds.js';
import { identifyLicenceText } from './licence-text.js';
import { inFolder, notReadOf, projectFiles, readManifest, readTextHead, type FileNotRead } from './project-files.js';

export type CompliancePosture = 'clear' | 'watching' | 'blocked';

export type ComplianceSuccess = LaneResult<{
  success: true;
  scope: string;
  posture: CompliancePosture;
  licence: ProjectLicence;
  dependencies: DependencyLicence[];
  checks: ComplianceCheck[];
  /** Files the review would have read or counted that the workspace opener refused (links, hard links, FIFOs). */
  notRead: FileNotRead[];
}>;

const IDENTITY = { role: 'compliance-agent', workflowStage: 'compliance-review', deliverable: 'licence and notice posture' };

/** Any failed check blocks; any warning is watched; otherwise the scope is clear. */
export function postureOf(checks: ComplianceCheck[]): CompliancePosture {
  if (checks.some((c) => c.status === 'fail')) return 'blocked';
  if (checks.some((c) => c.status === 'warn')) return 'watching';
  return 'clear';
}

function projectLicence(
  workspaceRoot: string,
  dir: string,
  files: string[],
  manifest: Record<string, unknown> | null,
  notRead: FileNotRead[],
): ProjectLicence {
  const identifiedByText: string[] = [];
  const unidentifiedFiles: string[] = [];
  const sources: string[] = [];
  for (const file of files) {
    const text = readTextHead(workspaceRoot, inFolder(dir, file));
    if (!text.ok) {
      // Listed as a regular file a moment ago, refused now: it is named, never read.
      notRead.push(notReadOf(text));
      continue;
    }
    const id = identifyLicenceText(text.text);
    if (id) {
      if (!identifiedByText.includes(id)) identifiedByText.push(id);
      sources.push(`${file} (text)`);
    } else unidentifiedFiles.push(file);
  }
  const declared = manifest ? declaredLicence(manifest) : null;
  if (declared) sources.push('package.json license');
  // The manifest states the SPDX expression on purpose; the file text backs it up or contradicts it.
  const spdx = declared ?? (identifiedByText.length === 0 ? null : identifiedByText.length === 1 ? identifiedByText[0]! : `(${identifiedByText.join(' OR ')})`);
  return {
    spdx,
    category: spdx ? categoryOf(spdx) : 'unknown',
    sources,
    unidentifiedFiles,
    declared,
    identifiedByText,
    private: manifest?.private === true,
  };
}

function nextActions(checks: ComplianceCheck[]): string[] {
  const actions: string[] = [];
  for (const check of checks) {
    if (check.status !== 'warn' && check.status !== 'fail') continue;
    if (check.check === 'licence-present') actions.push('Add a LICENSE file and a matching package.json "license" field (an SPDX id).');
    if (check.check === 'licence-consistent') actions.push('Make package.json "license" and the LICENSE file name the same licence.');
    if (check.check === 'licence-text-identified') actions.push('Have someone read the unrecognized licence file and record its SPDX id.');
    if (check.check === 'dependency-licences-known') actions.push('Install dependencies (npm ci) in the scope and review again, or record the licences of the unknown ones by hand.');
    if (check.check === 'copyleft-dependencies') {
      actions.push(check.status === 'fail' ? 'Replace or isolate the strong-copyleft dependencies, or get a legal decision before distributing.' : 'Confirm the copyleft dependencies are used unmodified and their licence texts ship with the project.');
    }
    if (check.check === 'proprietary-dependencies') actions.push('Check the terms of the proprietary dependencies cover this use.');
    if (check.check === 'notice-file') actions.push('Add a NOTICE file carrying the NOTICE texts of the Apache-2.0 dependencies.');
    if (check.check === 'readme-present') actions.push('Add a README that states what the project is and under which licence.');
    if (check.check === 'files-not-read') actions.push('Replace the linked or hard-linked files named in notRead by regular files of the project, then review again.');
  }
  if (actions.length === 0) actions.push('Nothing to act on; review again when dependencies change.');
  return actions;
}

/**
 * The compliance-review lane: the project's licence (LICENSE/COPYING text or package.json),
 * the licences of its declared dependencies as installed in the scope's node_modules, copyleft
 * in a permissive project, README and NOTICE presence. Read-only; flags, never decides.
 */
export function complianceReview(payload: LanePayload<'compliance-review'>, context: LaneContext): ComplianceSuccess | LaneRefusal {
  const { scope } = payload;
  const resend = ['Resend with payload.scope naming the project folder (the one with package.json or LICENSE) inside the workspace.'];
  const resolved = resolveScope(context.workspaceRoot, scope);
  if ('problem' in resolved) return refuseLane(IDENTITY, resolved.problem, resend);
  if (!resolved.stats.isDirectory()) return refuseLane(IDENTITY, `scope ${JSON.stringify(scope)} is a file; a compliance review needs the project folder`, resend);
  const dir = resolved.relative;
  const root = context.workspaceRoot;

  const files = projectFiles(root, dir);
  const notRead: FileNotRead[] = [...files.notRead];
  const manifestPath = inFolder(dir, 'package.json');
  const manifestRefused = notRead.find((file) => file.path === manifestPath);
  if (manifestRefused) {
    return refuseLane(IDENTITY, `${manifestRefused.path} ${manifestRefused.reason}: it was not read, so the licence and dependencies cannot be reviewed`, [
      'Make package.json a regular file of the project (not a link or a hard link) and review again.',
    ]);
  }
  const read = files.packageJson ? readManifest(root, manifestPath) : null;
  if (read !== null && !read.ok) {
    return refuseLane(IDENTITY, `${read.message}: it was not read, so the licence and dependencies cannot be reviewed`, ['Make package.json a regular file of the project and review again.']);
  }
  const manifest = read?.manifest ?? null;
  if (files.packageJson && manifest === null) {
    return refuseLane(IDENTITY, `${scope}/package.json is not a readable JSON object, so its licence and dependencies cannot be reviewed`, ['Fix package.json and review again.']);
  }
  const licence = projectLicence(root, dir, files.licences, manifest, notRead);
  const deps = manifest ? dependencyLicences(root, dir, manifest) : { dependencies: [], beyondLimit: 0, notRead: [] };
  const { dependencies, beyondLimit } = deps;
  notRead.push(...deps.notRead);
  const checks = [...licenceChecks(licence), ...dependencyChecks(licence, dependencies, files.notice, beyondLimit), readmeCheck(files.readme), ...notReadCheck(notRead)];
  const posture = postureOf(checks);
  const flagged = checks.filter((c) => c.status === 'fail' || c.status === 'warn');
  const known = dependencies.filter((d) => d.category !== 'unknown').length;

  return {
    success: true,
    scope,
    posture,
    licence,
    dependencies,
    checks,
    notRead,
    operatorSummary:
      `Compliance of ${scope}: ${posture}. Licence ${licence.spdx ?? 'missing'}; ${dependencies.length} dependencies (${known} with a known licence)` +
      `${flagged.length ? `; flagged: ${flagged.map((c) => `${c.check} (${c.status})`).join(', ')}` : ''}.`,
    recommendedNextActions: nextActions(checks),
    specialistContract: specialistContract({ ...IDENTITY, status: 'completed' }),
  };
}
