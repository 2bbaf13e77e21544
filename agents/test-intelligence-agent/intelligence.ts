import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneContext, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import { analyzeReports, type FailureFinding, type FlakyFinding, type Posture, type ReadReportSummary } from './analyze.js';
import { findReports } from './find-reports.js';
import { readIntelligenceInput } from './read-input.js';
import { readReport } from './read-report.js';
import { totalsOf, type ReportFormat, type Totals } from './test-case.js';

export const MAX_LISTED_FAILURES = 200;
export const MAX_LISTED_FLAKY = 100;

const IDENTITY = { role: 'test-intelligence-agent', workflowStage: 'test-evidence', deliverable: 'test posture from existing reports' };

/** One report as the result cites it; `error` when it was found but could not be read. */
export type ReportEntry = { path: string; format: ReportFormat; totals: Totals } | { path: string; format: ReportFormat; error: string };

export type IntelligenceSuccess = LaneResult<{
  success: true;
  scope: string;
  posture: Posture;
  postureReason: string;
  reports: ReportEntry[];
  totals: Totals;
  failures: FailureFinding[];
  flaky: FlakyFinding[];
  consistentFailures: number;
  walkTruncated: boolean;
}>;

export type IntelligenceOutcome = IntelligenceSuccess | (LaneRefusal & Record<string, unknown>);

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function nextActions(posture: Posture, failures: FailureFinding[], flaky: FlakyFinding[], unreadable: number): string[] {
  const actions: string[] = [];
  const flakyIds = new Set(flaky.map((f) => `${f.classname}\u0000${f.name}`));
  const consistent = failures.filter((f) => !flakyIds.has(`${f.classname}\u0000${f.name}`));
  if (consistent.length > 0) {
    const names = [...new Set(consistent.map((f) => f.name))];
    actions.push(`Fix the failing tests before release: ${names.slice(0, 5).join('; ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}.`);
  }
  if (flaky.length > 0) {
    actions.push(`Stabilize or quarantine the flaky tests: ${flaky.slice(0, 5).map((f) => f.name).join('; ')}${flaky.length > 5 ? ` and ${flaky.length - 5} more` : ''}.`);
  }
  if (unreadable > 0) actions.push(`Regenerate the ${plural(unreadable, 'report')} that could not be read (see reports[].error).`);
  if (posture === 'watching' && failures.length === 0 && flaky.length === 0) actions.push('Re-enable the skipped tests, or run the suites that produce test cases, before calling the scope ready.');
  if (posture === 'ready') actions.push('No test action needed: every test in the reports passed.');
  return actions;
}

/**
 * The test-intelligence lane: reads existing JUnit XML, TAP and Jest/Vitest JSON reports of a
 * scope (never runs tests) and reports totals, failing cases with their messages, tests that
 * flip between reports, and a posture: ready, watching or blocked.
 */
export async function testIntelligence(payload: LanePayload<'test-intelligence'>, context: LaneContext): Promise<IntelligenceOutcome> {
  const input = readIntelligenceInput(payload);
  const found = findReports(context.workspaceRoot, input.scope, input.reports);
  if ('problem' in found) {
    return refuseLane(IDENTITY, found.problem, ['Name a scope inside the workspace and reports inside that scope.']);
  }
  if (found.files.length === 0) {
    // No evidence is a blocked posture and a lane that could not do its work: both are said.
    return {
      ...refuseLane(IDENTITY, `no test report found in scope ${JSON.stringify(input.scope)} (looked for junit*.xml, TEST-*.xml, *.tap and Jest/Vitest JSON reports)`, [
        'Have CI write a JUnit XML report (e.g. jest-junit, vitest --reporter=junit, node --test-reporter=junit) into the scope, or name the reports in payload.reports.',
      ]),
      posture: 'blocked',
      scope: input.scope,
      reports: [],
    };
  }

  const read: ReadReportSummary[] = [];
  const entries: ReportEntry[] = [];
  for (const file of found.files) {
    const outcome = readReport(context.workspaceRoot, file);
    if ('skip' in outcome) continue;
    if ('error' in outcome) {
      entries.push({ path: file.path, format: file.format, error: outcome.error });
      continue;
    }
    const totals = totalsOf(outcome.parsed.cases, outcome.parsed.time);
    read.push({ path: file.path, format: file.format, cases: outcome.parsed.cases, totals });
    entries.push({ path: file.path, format: file.format, totals });
  }
  const unreadable = entries.length - read.length;
  if (read.length === 0) {
    const reason =
      entries.length === 0
        ? `no test report found in scope ${JSON.stringify(input.scope)}: the JSON files found are not Jest/Vitest reports`
        : `none of the ${plural(entries.length, 'report')} in scope could be read: ${entries.map((e) => `${e.path} (${'error' in e ? e.error : ''})`).join('; ')}`;
    return { ...refuseLane(IDENTITY, reason, ['Regenerate the test reports and run test-intelligence again.']), posture: 'blocked', scope: input.scope, reports: entries };
  }

  const analysis = analyzeReports(read);
  const { totals } = analysis;
  const operatorSummary =
    `Test posture ${analysis.posture} for ${input.scope}: ${analysis.postureReason}. ` +
    `${plural(read.length, 'report')} read (${plural(totals.tests, 'test')}, ${totals.failures} failed, ${totals.errors} errored, ${totals.skipped} skipped, ${totals.time} s)` +
    `${analysis.flaky.length > 0 ? `; flaky: ${analysis.flaky.slice(0, 3).map((f) => f.name).join('; ')}` : ''}` +
    `${unreadable > 0 ? `; ${plural(unreadable, 'report')} could not be read` : ''}.`;

  return {
    success: true,
    scope: input.scope,
    posture: analysis.posture,
    postureReason: analysis.postureReason,
    reports: entries,
    totals,
    failures: analysis.failures.slice(0, MAX_LISTED_FAILURES),
    flaky: analysis.flaky.slice(0, MAX_LISTED_FLAKY),
    consistentFailures: analysis.consistentFailures,
    walkTruncated: found.walkTruncated,
    operatorSummary,
    recommendedNextActions: nextActions(analysis.posture, analysis.failures, analysis.flaky, unreadable),
    // Reports that could not be read, or a walk cut short, leave the evidence incomplete.
    specialistContract: specialistContract({ ...IDENTITY, status: unreadable > 0 || found.walkTruncated ? 'partial' : 'completed' }),
  };
}
