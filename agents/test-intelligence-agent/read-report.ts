import { displayText } from '../../src/worker-sdk/display-text.js';
import { readScopedFile } from '../../src/worker-sdk/workspace-file.js';
import type { ReportFile } from './find-reports.js';
import { parseJsonReport, isJestShapedReport } from './parse-json-report.js';
import { parseJunit } from './parse-junit.js';
import { parseTapReport } from './parse-tap-report.js';
import type { ParsedReport } from './test-case.js';

/** A report larger than this is not read (a runaway log, not a summary). */
export const MAX_REPORT_BYTES = 20 * 1024 * 1024;

export type ReadReport = { parsed: ParsedReport } | { skip: true } | { error: string };

/**
 * Reads and parses one report. A discovered JSON file that is not a test report (any JSON
 * whose name mentions "test" or "report") is skipped quietly; every other problem is an error
 * the result names.
 */
export function readReport(workspaceRoot: string, file: ReportFile): ReadReport {
  const outcome = parseReport(workspaceRoot, file);
  if (!('parsed' in outcome)) return outcome;
  // A report written by a run in this workspace quotes its stack traces with the server's paths.
  const cases = outcome.parsed.cases.map((c) => (c.message === null ? c : { ...c, message: displayText(c.message, { workspaceRoot }) }));
  return { parsed: { ...outcome.parsed, cases } };
}

function parseReport(workspaceRoot: string, file: ReportFile): ReadReport {
  const read = readScopedFile(workspaceRoot, file.path, { maxBytes: MAX_REPORT_BYTES });
  if (!read.ok) return { error: read.message };
  const text = read.content.toString('utf8');
  try {
    if (file.format === 'junit') return { parsed: parseJunit(text) };
    if (file.format === 'tap') return { parsed: parseTapReport(text) };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      return file.named ? { error: `not valid JSON (${(err as Error).message})` } : { skip: true };
    }
    if (!file.named && !isJestShapedReport(json)) return { skip: true };
    return { parsed: parseJsonReport(json) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}
