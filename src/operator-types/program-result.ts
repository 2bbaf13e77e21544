import { readFileSync, statSync } from 'node:fs';
import { MAX_PROGRAM_STDOUT_BYTES, MAX_RESULT_LINE_BYTES } from './program-output.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

type Read = { result: Record<string, unknown> } | { problem: string };

function parseObject(text: string, where: string): Read {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const start = text.length > 120 ? `${text.slice(0, 120)}…` : text;
    return { problem: `${where} is not JSON (it begins ${JSON.stringify(start)})` };
  }
  return isRecord(value) ? { result: value } : { problem: `${where} is JSON but not an object` };
}

/**
 * A program's result: the result file when the program wrote one (a deliberate answer wins over
 * whatever it printed), else the last non-empty line of its stdout. The problem says what was
 * missing or wrong in an operator's words.
 */
export function readProgramResult(resultFile: string, stdoutLastLine: string | null, lineTooLong: boolean): Read {
  let size: number | null = null;
  try {
    size = statSync(resultFile).size;
  } catch {
    // no result file: stdout's last line is the result
  }
  if (size !== null) {
    if (size > MAX_PROGRAM_STDOUT_BYTES) return { problem: `the result file is larger than ${MAX_PROGRAM_STDOUT_BYTES} bytes` };
    return parseObject(readFileSync(resultFile, 'utf8').trim(), 'the result file (ORCH_RESULT_FILE)');
  }
  if (lineTooLong) return { problem: `the last line of the program's stdout is longer than ${MAX_RESULT_LINE_BYTES} bytes` };
  if (stdoutLastLine === null) {
    return { problem: 'the program printed no JSON result: print one JSON object as the last line of stdout, or write it to ORCH_RESULT_FILE' };
  }
  return parseObject(stdoutLastLine.trim(), "the last line of the program's stdout");
}

/**
 * The worker's answer for a program that exited 0 with a result: `"success": false` is the
 * program's own failure (its `error`, or a plain reason); otherwise a success, `success: true`
 * added when the program left it out (the worker protocol needs it; the result schema allows it).
 */
export function answerOf(result: Record<string, unknown>): Record<string, unknown> {
  if (result.success === false) {
    const error = typeof result.error === 'string' && result.error.trim() !== '' ? result.error : 'the program reported "success": false';
    return { ...result, error };
  }
  return 'success' in result ? result : { success: true, ...result };
}
