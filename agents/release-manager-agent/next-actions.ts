import type { ReleaseGate } from './gate.js';
import type { ProjectEvidence } from './project-gates.js';

/** How many failing test cases an action names before it says "and N more". */
const CASES_NAMED = 3;

/** The remedy of a gate that did not pass, after what the gate found. */
const REMEDIES: Record<string, string> = {
  'recent-failures': 'fix or explain those runs before releasing (GET /api/tasks/runs?status=failed).',
  'pending-approvals': 'decide them, so the release carries no undecided change.',
  'open-incidents': 'resolve or accept them before releasing.',
  'package-version': 'give package.json a semantic version for the release.',
  changelog: 'add a CHANGELOG entry for the release version.',
  'test-script': 'add an npm test script that runs the tests.',
  lockfile: 'commit a lockfile so the release installs reproducibly.',
};

function failingCases(project: ProjectEvidence | null): string {
  const failing = project?.junit.failing ?? [];
  const named = failing.slice(0, CASES_NAMED).map((c) => (c.className ? `${c.className} › ${c.name}` : c.name));
  return failing.length > CASES_NAMED ? `${named.join('; ')} and ${failing.length - CASES_NAMED} more` : named.join('; ');
}

/**
 * The test-reports gate's action: a failing report names its failing cases; a missing report is
 * a missing report (no test failed, there is no evidence either way), so the remedy is to have
 * the test run write one.
 */
function testReportsAction(gate: ReleaseGate, project: ProjectEvidence | null, scope: string | null): string {
  if (gate.status === 'fail') {
    return `Fix the failing test cases (${failingCases(project)}) in ${project?.junit.reports.join(', ') ?? 'the JUnit reports'}, then run the tests again.`;
  }
  return `${gate.evidence}: have the test run write a JUnit report (for example junit.xml under ${scope ?? 'the project'}/test-results/) so the release carries test evidence.`;
}

function actionFor(gate: ReleaseGate, project: ProjectEvidence | null, scope: string | null): string {
  if (gate.gate === 'test-reports') return testReportsAction(gate, project, scope);
  const remedy = REMEDIES[gate.gate] ?? 'clear it before releasing.';
  return `${gate.gate}: ${gate.evidence}; ${remedy}`;
}

/**
 * The release-readiness lane's recommended next actions: one per gate that did not pass (failing
 * gates first), each naming what the gate found, plus the project files it could not read. With
 * every gate passing, the one action is to release through the approval path; never to run this
 * lane again.
 */
export function releaseNextActions(gates: ReleaseGate[], project: ProjectEvidence | null, scope: string | null, subject: string): string[] {
  const open = [...gates.filter((g) => g.status === 'fail'), ...gates.filter((g) => g.status === 'warn')];
  const notRead =
    project && project.notRead.length > 0
      ? [`Make ${project.notRead.map((f) => f.path).join(', ')} regular files of the project: symbolic links and hard links are never read.`]
      : [];
  if (open.length === 0) {
    return [...notRead, `All ${gates.length} gates pass for ${subject}: release through the approval path; this lane does not tag, publish or deploy.`];
  }
  return [...notRead, ...open.map((g) => actionFor(g, project, scope))];
}
