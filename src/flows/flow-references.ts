import { pointerSegment } from '../domain/errors.js';
import type { RunRecord } from '../domain/run-record.js';
import { atPointer, resultFields } from '../task-types/result-view.js';

/** `{"$from": "<key>", "pointer": "/result/..."}`: a value of a dependency's outcome, anywhere in a step's payload. */
export interface PayloadReference {
  $from: string;
  pointer: string;
}

/** One reference and where it sits in the payload (a JSON pointer from the payload's root). */
export interface FoundReference {
  at: string;
  ref: PayloadReference;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An object with `$from` is a reference (and must be one: exactly `$from` and `pointer`, both text). */
export function isReferenceShaped(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && Object.hasOwn(value, '$from');
}

export function isWellFormedReference(value: Record<string, unknown>): value is Record<string, unknown> & PayloadReference {
  const keys = Object.keys(value).sort();
  return (
    keys.length === 2 &&
    keys[0] === '$from' &&
    keys[1] === 'pointer' &&
    typeof value.$from === 'string' &&
    typeof value.pointer === 'string' &&
    (value.pointer === '' || value.pointer.startsWith('/'))
  );
}

/** Every object carrying `$from` in the payload, with its place (well-formed or not: the caller checks). */
export function findReferences(payload: unknown, at = ''): Array<{ at: string; value: Record<string, unknown> }> {
  if (isReferenceShaped(payload)) return [{ at, value: payload }];
  if (Array.isArray(payload)) return payload.flatMap((item, i) => findReferences(item, `${at}/${i}`));
  if (isRecord(payload)) return Object.entries(payload).flatMap(([key, item]) => findReferences(item, `${at}/${pointerSegment(key)}`));
  return [];
}

/** What a reference reads: the dependency's work run as `{result, payload}` (an in-process handler's `{status, result}` unwrapped). */
export function referenceSource(run: RunRecord): Record<string, unknown> {
  return { result: resultFields(run.result) ?? run.result, payload: run.payload };
}

export const describeReference = (ref: PayloadReference) => `{"$from": "${ref.$from}", "pointer": "${ref.pointer}"}`;

/**
 * The payload with every reference replaced by the value it points at, or the first reference
 * with no value (`sourceOf` answers null for a dependency without a run to read).
 */
export function resolveReferences(
  payload: Record<string, unknown>,
  sourceOf: (key: string) => Record<string, unknown> | null,
): { ok: true; payload: Record<string, unknown> } | { ok: false; missing: PayloadReference; at: string } {
  let missing: FoundReference | null = null;
  const walk = (value: unknown, at: string): unknown => {
    if (missing) return value;
    if (isReferenceShaped(value) && isWellFormedReference(value)) {
      const source = sourceOf(value.$from);
      const resolved = source === null ? undefined : atPointer(source, value.pointer);
      if (resolved === undefined) missing = { at, ref: { $from: value.$from, pointer: value.pointer } };
      return resolved;
    }
    if (Array.isArray(value)) return value.map((item, i) => walk(item, `${at}/${i}`));
    if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, `${at}/${pointerSegment(k)}`)]));
    return value;
  };
  const resolved = walk(payload, '') as Record<string, unknown>;
  const found = missing as FoundReference | null;
  return found ? { ok: false, missing: found.ref, at: found.at } : { ok: true, payload: resolved };
}
