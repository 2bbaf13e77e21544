import { refuseLane, specialistContract, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import { coerceValue } from './coerce.js';
import { dedupe, type Duplicate } from './dedupe.js';
import { readSchema, type FieldRule } from './field-schema.js';

export type NormalizedRecord = Record<string, unknown>;

export interface RejectedRecord {
  /** Position of the record in the payload's records. */
  index: number;
  /** Every reason the record does not fit, one per field: `age: "abc" is not a number`. */
  reasons: string[];
}

export interface NormalizeStats {
  input: number;
  output: number;
  rejected: number;
  duplicatesRemoved: number;
  /** Values in the output that differ from the input (type converted, trimmed, lower-cased, reformatted, blank → null). */
  coercions: number;
  coercionsByField: Record<string, number>;
}

export type NormalizeSuccess = LaneResult<{
  success: true;
  records: NormalizedRecord[];
  rejected: RejectedRecord[];
  duplicates: Duplicate[];
  stats: NormalizeStats;
}>;

export type NormalizeOutcome = NormalizeSuccess | (LaneRefusal & { rejected?: RejectedRecord[]; stats?: NormalizeStats });

export const MAX_RECORDS = 10_000;
const IDENTITY = { role: 'normalization-agent', workflowStage: 'normalize', deliverable: 'normalized records' };
const RESEND = 'Resend with records[] (objects), schema {field: type or {type, required?, trim?, lowercase?}} and optional dedupeBy[] of schema fields.';

interface NormalizeInput {
  records: unknown[];
  rules: FieldRule[];
  dedupeBy: string[];
}

function readInput(payload: Readonly<Record<string, unknown>>): NormalizeInput | { problem: string } {
  const { records, schema, dedupeBy } = payload;
  if (!Array.isArray(records)) return { problem: 'payload.records must be a list of records' };
  if (records.length === 0) return { problem: 'payload.records is empty: there is nothing to normalize' };
  if (records.length > MAX_RECORDS) return { problem: `payload.records holds ${records.length} records, over the limit of ${MAX_RECORDS}; split the batch` };
  const rules = readSchema(schema);
  if ('problem' in rules) return rules;
  if (dedupeBy !== undefined && dedupeBy !== null) {
    if (!Array.isArray(dedupeBy) || dedupeBy.length === 0 || !dedupeBy.every((f) => typeof f === 'string')) {
      return { problem: 'payload.dedupeBy must be a non-empty list of field names' };
    }
    // Keys are compared after normalization, which only schema fields get.
    const unknown = dedupeBy.filter((field) => !rules.some((rule) => rule.name === field));
    if (unknown.length > 0) return { problem: `dedupeBy field ${unknown.map((f) => JSON.stringify(f)).join(', ')} is not in the schema` };
  }
  return { records, rules, dedupeBy: (dedupeBy as string[] | undefined) ?? [] };
}

function sameValue(a: unknown, b: unknown): boolean {
  return Object.is(a, b);
}

/**
 * Normalizes one record: schema fields first, in schema order, each coerced (an optional field
 * that is absent or blank becomes null); fields the schema does not name follow unchanged.
 */
function normalizeRecord(
  record: unknown,
  rules: FieldRule[],
): { record: NormalizedRecord; changed: string[] } | { reasons: string[] } {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    return { reasons: [`record is ${record === null ? 'null' : Array.isArray(record) ? 'a list' : `a ${typeof record}`}, not an object`] };
  }
  const source = record as Record<string, unknown>;
  const out: NormalizedRecord = {};
  const reasons: string[] = [];
  const changed: string[] = [];
  for (const rule of rules) {
    const input = Object.hasOwn(source, rule.name) ? source[rule.name] : undefined;
    const result = coerceValue(rule, input);
    if ('problem' in result) reasons.push(`${rule.name}: ${result.problem}`);
    else if ('missing' in result) {
      if (rule.required) reasons.push(`${rule.name}: required but ${input === undefined ? 'missing' : 'empty'}`);
      out[rule.name] = null;
      if (input !== undefined && input !== null) changed.push(rule.name);
    } else {
      out[rule.name] = result.value;
      if (!sameValue(result.value, input)) changed.push(rule.name);
    }
  }
  if (reasons.length > 0) return { reasons };
  for (const [key, value] of Object.entries(source)) if (!Object.hasOwn(out, key)) out[key] = value;
  return { record: out, changed };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * The normalize-data lane: coerces each record to the schema, rejects the records that do not
 * fit with every reason at once, then removes duplicates by `dedupeBy` keeping the first.
 * Pure and deterministic. input = output + rejected + duplicatesRemoved, always.
 */
export function normalizeData(payload: Readonly<Record<string, unknown>>): NormalizeOutcome {
  const input = readInput(payload);
  if ('problem' in input) return refuseLane(IDENTITY, input.problem, [RESEND]);

  const accepted: Array<{ index: number; record: NormalizedRecord; changed: string[] }> = [];
  const rejected: RejectedRecord[] = [];
  input.records.forEach((record, index) => {
    const result = normalizeRecord(record, input.rules);
    if ('reasons' in result) rejected.push({ index, reasons: result.reasons });
    else accepted.push({ index, ...result });
  });

  const { kept, duplicates } = input.dedupeBy.length > 0 ? dedupe(accepted, input.dedupeBy) : { kept: accepted, duplicates: [] };
  const coercionsByField: Record<string, number> = {};
  let coercions = 0;
  for (const entry of kept) {
    for (const field of entry.changed) {
      coercionsByField[field] = (coercionsByField[field] ?? 0) + 1;
      coercions += 1;
    }
  }
  const stats: NormalizeStats = {
    input: input.records.length,
    output: kept.length,
    rejected: rejected.length,
    duplicatesRemoved: duplicates.length,
    coercions,
    coercionsByField,
  };

  if (kept.length === 0) {
    const first = rejected[0]!;
    return {
      ...refuseLane(IDENTITY, `every record was rejected (first: record ${first.index}: ${first.reasons.join('; ')})`, [
        'Fix the source data or the schema; the reasons of each record are in rejected[].',
      ]),
      rejected,
      stats,
    };
  }

  const actions: string[] = [];
  if (rejected.length > 0) actions.push(`Fix the ${plural(rejected.length, 'rejected record')} at the source (first: record ${rejected[0]!.index}: ${rejected[0]!.reasons[0]}) and normalize them again.`);
  if (duplicates.length > 0) actions.push(`Check the ${plural(duplicates.length, 'removed duplicate')} in duplicates[] if later records should have won.`);
  actions.push('Use records[] downstream; every value there has its schema type.');

  const parts = [`Normalized ${plural(input.records.length, 'record')}: ${kept.length} kept`];
  if (rejected.length > 0) parts.push(`${rejected.length} rejected`);
  if (duplicates.length > 0) parts.push(`${plural(duplicates.length, 'duplicate')} removed`);
  return {
    success: true,
    records: kept.map((entry) => entry.record),
    rejected,
    duplicates,
    stats,
    operatorSummary: `${parts.join(', ')}; ${plural(coercions, 'value')} coerced.`,
    recommendedNextActions: actions,
    specialistContract: specialistContract({ ...IDENTITY, status: rejected.length > 0 ? 'partial' : 'completed' }),
  };
}
