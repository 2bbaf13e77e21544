import { readJsonObjectFile } from './json-file.js';
import { UsageError } from './usage-error.js';

const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

/**
 * A value as typed: JSON when it parses as JSON (`5`, `true`, `["a"]`, `{"x":1}`, `"quoted"`),
 * else the text itself (`hello world`, `projects/app`).
 */
export function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Builds a payload from `key=value` words; dotted keys nest (`constraints.maxFilesChanged=1`).
 * Splits at the first `=`, so values may hold `=`. A key given twice, a key that is both a value
 * and a parent, or an empty key segment is a usage error.
 */
export function payloadFromAssignments(words: readonly string[], into: Record<string, unknown> = {}): Record<string, unknown> {
  const payload = into;
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq <= 0) throw new UsageError(`'${word}' is not key=value`);
    const path = word.slice(0, eq).split('.');
    if (path.some((segment) => segment === '')) throw new UsageError(`'${word.slice(0, eq)}' has an empty key segment`);
    const bad = path.find((segment) => FORBIDDEN_KEYS.has(segment));
    if (bad) throw new UsageError(`'${bad}' is not allowed as a key`);
    let target: Record<string, unknown> = payload;
    for (const [i, segment] of path.slice(0, -1).entries()) {
      const existing = target[segment];
      if (existing === undefined) target[segment] = {};
      else if (typeof existing !== 'object' || existing === null || Array.isArray(existing)) {
        throw new UsageError(`'${path.slice(0, i + 1).join('.')}' is already a value; it cannot also hold '${path[i + 1]}'`);
      }
      target = target[segment] as Record<string, unknown>;
    }
    const last = path[path.length - 1]!;
    if (Object.prototype.hasOwnProperty.call(target, last)) throw new UsageError(`'${path.join('.')}' is given twice`);
    target[last] = parseValue(word.slice(eq + 1));
  }
  return payload;
}

/** `over` merged into `base`, objects field by field, anything else replaced. */
export function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = merged[key];
    const bothObjects = [current, value].every((v) => typeof v === 'object' && v !== null && !Array.isArray(v));
    merged[key] = bothObjects ? deepMerge(current as Record<string, unknown>, value as Record<string, unknown>) : value;
  }
  return merged;
}

/** The JSON object in the file a flag names (`--payload-file`, `--input-file`); no flag: an empty object. */
export function objectFromJsonFile(path: string | undefined, flagName: string): Record<string, unknown> {
  return path === undefined ? {} : readJsonObjectFile(path, flagName);
}
