import { readFile, stat } from 'node:fs/promises';
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
export async function readReport(file: ReportFile): Promise<ReadReport> {
  const info = await stat(file.absolute);
  if (info.size > MAX_REPORT_BYTES) return { error: `larger than ${MAX_REPORT_BYTES} bytes; not read` };
  const text = await readFile(file.absolute, 'utf8');
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
