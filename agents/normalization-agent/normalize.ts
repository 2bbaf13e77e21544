import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
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

const IDENTITY = { role: 'normalization-agent', workflowStage: 'normalize', deliverable: 'normalized records' };
const RESEND = 'Resend with records[] (objects), schema {field: type or {type, required?, trim?, lowercase?}} and optional dedupeBy[] of schema fields.';

interface NormalizeInput {
  records: ReadonlyArray<Readonly<Record<string, unknown>>>;
  rules: FieldRule[];
  dedupeBy: string[];
}

/**
 * The payload in working form. The task schema has checked the shapes (records are objects, at
 * most 10,000; 1 to 200 schema fields, each a known type with boolean options; dedupeBy a
 * non-empty list); what is left is what it cannot say: an empty batch, contradicting field
 * options, a dedupe key that is not a schema field.
 */
function readInput(payload: LanePayload<'normalize-data'>): NormalizeInput | { problem: string } {
  const { records, schema, dedupeBy } = payload;
  if (records.length === 0) return { problem: 'payload.records is empty: there is nothing to normalize' };
  const rules = readSchema(schema);
  if ('problem' in rules) return rules;
  if (dedupeBy !== undefined) {
    // Keys are compared after normalization, which only schema fields get.
    const unknown = dedupeBy.filter((field) => !rules.some((rule) => rule.name === field));
    if (unknown.length > 0) return { problem: `dedupeBy field ${unknown.map((f) => JSON.stringify(f)).join(', ')} is not in the schema` };
  }
  // The schema types each record as a bare `object`; its fields are read by name, so as a record of them.
  return { records: records as ReadonlyArray<Readonly<Record<string, unknown>>>, rules, dedupeBy: dedupeBy ?? [] };
}

function sameValue(a: unknown, b: unknown): boolean {
  return Object.is(a, b);
}

/**
 * Normalizes one record: schema fields first, in schema order, each coerced (an optional field
 * that is absent or blank becomes null); fields the schema does not name follow unchanged.
 */
function normalizeRecord(
  source: Readonly<Record<string, unknown>>,
  rules: FieldRule[],
): { record: NormalizedRecord; changed: string[] } | { reasons: string[] } {
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
export function normalizeData(payload: LanePayload<'normalize-data'>): NormalizeOutcome {
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
