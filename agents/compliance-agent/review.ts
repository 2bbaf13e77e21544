import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneContext, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import { resolveWorkspacePath, WorkspaceBoundaryError } from '../../src/workspace/boundary.js';
import { dependencyChecks, licenceChecks, readmeCheck, type ComplianceCheck, type ProjectLicence } from './checks.js';
import { dependencyLicences, type DependencyLicence } from './dependencies.js';
import { categoryOf, declaredLicence } from './licence-kinds.js';
import { identifyLicenceText } from './licence-text.js';
import { projectFiles, readManifest, readTextHead } from './project-files.js';

export type CompliancePosture = 'clear' | 'watching' | 'blocked';

export type ComplianceSuccess = LaneResult<{
  success: true;
  scope: string;
  posture: CompliancePosture;
  licence: ProjectLicence;
  dependencies: DependencyLicence[];
  checks: ComplianceCheck[];
}>;

const IDENTITY = { role: 'compliance-agent', workflowStage: 'compliance-review', deliverable: 'licence and notice posture' };

/** Any failed check blocks; any warning is watched; otherwise the scope is clear. */
export function postureOf(checks: ComplianceCheck[]): CompliancePosture {
  if (checks.some((c) => c.status === 'fail')) return 'blocked';
  if (checks.some((c) => c.status === 'warn')) return 'watching';
  return 'clear';
}

function projectLicence(dir: string, files: string[], manifest: Record<string, unknown> | null): ProjectLicence {
  const identifiedByText: string[] = [];
  const unidentifiedFiles: string[] = [];
  const sources: string[] = [];
  for (const file of files) {
    const text = readTextHead(join(dir, file));
    const id = text === null ? null : identifyLicenceText(text);
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
  let dir: string;
  try {
    dir = resolveWorkspacePath(context.workspaceRoot, scope);
  } catch (err) {
    if (err instanceof WorkspaceBoundaryError) return refuseLane(IDENTITY, `scope ${err.message}`, resend);
    throw err;
  }
  let isDirectory = false;
  try {
    isDirectory = lstatSync(dir).isDirectory();
  } catch {
    return refuseLane(IDENTITY, `scope ${JSON.stringify(scope)} does not exist in the workspace`, resend);
  }
  if (!isDirectory) return refuseLane(IDENTITY, `scope ${JSON.stringify(scope)} is a file; a compliance review needs the project folder`, resend);

  const files = projectFiles(dir);
  const manifest = files.packageJson ? readManifest(join(dir, 'package.json')) : null;
  if (files.packageJson && manifest === null) {
    return refuseLane(IDENTITY, `${scope}/package.json is not a readable JSON object, so its licence and dependencies cannot be reviewed`, ['Fix package.json and review again.']);
  }
  const licence = projectLicence(dir, files.licences, manifest);
  const { dependencies, beyondLimit } = manifest ? dependencyLicences(context.workspaceRoot, scope, manifest) : { dependencies: [], beyondLimit: 0 };
  const checks = [...licenceChecks(licence), ...dependencyChecks(licence, dependencies, files.notice, beyondLimit), readmeCheck(files.readme)];
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
    operatorSummary:
      `Compliance of ${scope}: ${posture}. Licence ${licence.spdx ?? 'missing'}; ${dependencies.length} dependencies (${known} with a known licence)` +
      `${flagged.length ? `; flagged: ${flagged.map((c) => `${c.check} (${c.status})`).join(', ')}` : ''}.`,
    recommendedNextActions: nextActions(checks),
    specialistContract: specialistContract({ ...IDENTITY, status: 'completed' }),
  };
}
