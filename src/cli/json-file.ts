import { readFileSync } from 'node:fs';
import { UsageError } from './usage-error.js';

/** A file holding one JSON object; `label` names it in the usage error (`--payload-file f.json`, `flow file f.json`). */
export function readJsonObjectFile(path: string, label: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${label} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`${label} ${path} is not valid JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`${label} ${path} must hold a JSON object`);
  return parsed as Record<string, unknown>;
}
