import { rm } from 'node:fs/promises';

/**
 * What the service and a worker agree on besides the payload file: the durable result's file name,
 * the one-JSON-object rule of stdout (and of that file) and the payload directory's removal. The
 * spawner, restart recovery and the worker SDK all apply it, so it sits below all three.
 */

/** The worker's durable result, written in its payload directory before it exits. */
export const RESULT_FILE_NAME = 'result.json';

/** Removes a retained payload directory; safe to call more than once. */
export async function removeWorkerDirectory(directory: string): Promise<void> {
  await rm(directory, { recursive: true, force: true });
}

export type ParsedWorkerOutput = { object: Record<string, unknown> } | { problem: string };

/** The protocol allows exactly one JSON object on stdout (surrounding whitespace aside). */
export function parseWorkerStdout(stdout: string): ParsedWorkerOutput {
  const text = stdout.trim();
  if (text === '') return { problem: 'worker wrote nothing to stdout' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const start = text.length > 120 ? `${text.slice(0, 120)}…` : text;
    return { problem: `worker stdout is not one JSON object (it begins ${JSON.stringify(start)})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problem: 'worker stdout is JSON but not an object' };
  }
  return { object: value as Record<string, unknown> };
}
