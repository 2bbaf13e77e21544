/**
 * The run filters that look inside a run's document rather than at its columns: a payload
 * field's value and the result's verdict. Every driver reads the same normalized form from here,
 * so the JSON file store (in memory) and the SQL stores (in their queries) agree on what matches.
 */

/** A payload field name: dot-separated segments of letters, digits, `_` and `-` (so no driver has to quote it). */
export const PAYLOAD_FIELD_PATTERN = '^[A-Za-z0-9_-]{1,64}(\\.[A-Za-z0-9_-]{1,64}){0,7}$';
const PAYLOAD_FIELD = new RegExp(PAYLOAD_FIELD_PATTERN);

/** At most this many payload fields in one filter. */
export const MAX_PAYLOAD_FILTER_FIELDS = 8;

/** A filter value as a caller gives it: query strings give text, JSON bodies may give a number or boolean. */
export type PayloadFilterValue = string | number | boolean;

/**
 * One payload field to match exactly. A field matches when it holds a scalar equal to the value:
 * a string equal to `text`, a number equal to `number` (the text read as a number, when it is
 * one), or the boolean that `text` spells. Objects, arrays and null never match.
 */
export interface PayloadFieldMatch {
  /** The path inside `payload`, one entry per segment. */
  path: string[];
  text: string;
  number: number | null;
  boolean: 'true' | 'false' | null;
}

const NUMBER_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/;

export function isPayloadFieldName(name: string): boolean {
  return PAYLOAD_FIELD.test(name);
}

export function payloadFieldMatches(filter: Record<string, PayloadFilterValue> | undefined): PayloadFieldMatch[] {
  if (filter === undefined) return [];
  return Object.entries(filter).map(([name, value]) => {
    const text = String(value);
    const number = typeof value === 'number' ? value : NUMBER_TEXT.test(text) ? Number(text) : null;
    const boolean = text === 'true' || text === 'false' ? text : null;
    return {
      path: name.split('.'),
      text,
      number: typeof value === 'boolean' || (number !== null && !Number.isFinite(number)) ? null : number,
      boolean: typeof value === 'number' ? null : boolean,
    };
  });
}

/** Whether a payload holds the field's value (the in-memory reading of the rule above). */
export function payloadHasField(payload: unknown, match: PayloadFieldMatch): boolean {
  let value: unknown = payload;
  for (const segment of match.path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, segment)) return false;
    value = (value as Record<string, unknown>)[segment];
  }
  if (typeof value === 'string') return value === match.text;
  if (typeof value === 'number') return match.number !== null && value === match.number;
  if (typeof value === 'boolean') return match.boolean !== null && String(value) === match.boolean;
  return false;
}

/** The result fields a verdict filter reads: lanes name their outcome `verdict` (tests, reviews) or `posture` (audits). */
export const VERDICT_FIELDS = ['verdict', 'posture'] as const;

/** Whether a run's result carries the verdict as its `verdict` or `posture` string. */
export function resultHasVerdict(result: unknown, verdict: string): boolean {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return false;
  const fields = result as Record<string, unknown>;
  return VERDICT_FIELDS.some((field) => fields[field] === verdict);
}
