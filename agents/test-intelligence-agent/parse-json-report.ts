import { basename } from 'node:path';
import { shortMessage } from '../../src/worker-sdk/report-message.js';
import type { CaseStatus, ParsedReport, TestCase } from './test-case.js';

type Json = Record<string, unknown>;

const STATUS: Record<string, CaseStatus> = {
  passed: 'passed',
  failed: 'failed',
  pending: 'skipped',
  skipped: 'skipped',
  todo: 'skipped',
  disabled: 'skipped',
};

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** Does this parsed JSON have the shape of a Jest `--json` or Vitest json-reporter report? */
export function isJestShapedReport(value: unknown): value is Json {
  return isObject(value) && typeof value.numFailedTests === 'number' && Array.isArray(value.testResults);
}

/**
 * A Jest `--json` / Vitest json report: `testResults[]` per file, each with
 * `assertionResults[]` of `{ancestorTitles, title, status, failureMessages, duration (ms)}`. A
 * file that failed to run (no assertions, status failed) counts as one error named after the file.
 */
export function parseJsonReport(value: unknown): ParsedReport {
  if (!isJestShapedReport(value)) throw new Error('not a Jest/Vitest JSON report (numFailedTests and testResults[] expected)');
  const cases: TestCase[] = [];
  for (const file of value.testResults as unknown[]) {
    if (!isObject(file)) continue;
    const filePath = typeof file.name === 'string' ? file.name : typeof file.testFilePath === 'string' ? file.testFilePath : '';
    const fileLabel = filePath === '' ? '' : basename(filePath);
    const assertions = Array.isArray(file.assertionResults) ? file.assertionResults.filter(isObject) : [];
    if (assertions.length === 0 && file.status === 'failed') {
      cases.push({
        name: `${fileLabel || 'test file'} (failed to run)`,
        classname: fileLabel,
        status: 'error',
        message: shortMessage(typeof file.message === 'string' ? file.message : null) ?? 'the test file failed to run',
        time: 0,
        rerunFlaky: false,
      });
      continue;
    }
    for (const assertion of assertions) {
      const status = STATUS[typeof assertion.status === 'string' ? assertion.status : ''] ?? 'skipped';
      const ancestors = strings(assertion.ancestorTitles);
      cases.push({
        name: typeof assertion.title === 'string' ? assertion.title : String(assertion.fullName ?? '(unnamed)'),
        classname: ancestors.length > 0 ? ancestors.join(' > ') : fileLabel,
        status,
        message: status === 'failed' ? shortMessage(strings(assertion.failureMessages).join('\n')) : null,
        time: typeof assertion.duration === 'number' ? assertion.duration / 1000 : 0,
        rerunFlaky: false,
      });
    }
  }
  return { cases, time: null };
}
