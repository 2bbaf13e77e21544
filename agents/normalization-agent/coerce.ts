import { normalizeDate } from './dates.js';
import type { FieldRule } from './field-schema.js';
import { parseNumber } from './numbers.js';
import { isValidEmail, normalizeUrl } from './text-values.js';

/** The result of coercing one value: the normalized value, an absent value, or why it does not fit. */
export type Coercion = { value: unknown } | { missing: true } | { problem: string };

const TRUE_WORDS = new Set(['true', 'yes', '1']);
const FALSE_WORDS = new Set(['false', 'no', '0']);
const SHOWN_LIMIT = 60;

/** The value as the reason quotes it: `"abc"`, `42`, `{…}`; long text is cut. */
export function showValue(value: unknown): string {
  const shown = JSON.stringify(value) ?? String(value);
  return shown.length <= SHOWN_LIMIT ? shown : `${shown.slice(0, SHOWN_LIMIT)}…`;
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Text of a scalar for parsing: strings trimmed, numbers and booleans as written; null for anything else. */
function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return null;
}

function toNumber(value: unknown, whole: boolean): Coercion {
  if (typeof value === 'boolean') return { problem: `${showValue(value)} is a boolean, not a number` };
  const text = scalarText(value);
  const number = text === null ? null : parseNumber(text);
  if (number === null || !Number.isFinite(number)) return { problem: `${showValue(value)} is not a number` };
  if (whole && !Number.isInteger(number)) return { problem: `${showValue(value)} is not a whole number` };
  if (whole && !Number.isSafeInteger(number)) return { problem: `${showValue(value)} is too large to hold exactly` };
  return { value: Object.is(number, -0) ? 0 : number };
}

function toBoolean(value: unknown): Coercion {
  if (typeof value === 'boolean') return { value };
  const text = scalarText(value)?.toLowerCase() ?? null;
  if (text !== null && TRUE_WORDS.has(text)) return { value: true };
  if (text !== null && FALSE_WORDS.has(text)) return { value: false };
  return { problem: `${showValue(value)} is not a boolean (true/false, yes/no, 1/0)` };
}

/**
 * Coerces one value to its field's type. A value that is absent, null or blank text is
 * `missing` (the caller decides whether that rejects the record). Strings are trimmed unless
 * the rule turns trimming off; every other type always parses the trimmed text.
 */
export function coerceValue(rule: FieldRule, value: unknown): Coercion {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return { missing: true };
  if (typeof value === 'object') return { problem: `${showValue(value)} is ${kindOf(value)}, not a ${rule.type}` };
  switch (rule.type) {
    case 'string': {
      let text = typeof value === 'string' ? value : String(value);
      if (rule.trim) text = text.trim();
      return { value: rule.lowercase ? text.toLowerCase() : text };
    }
    case 'number':
      return toNumber(value, false);
    case 'integer':
      return toNumber(value, true);
    case 'boolean':
      return toBoolean(value);
    case 'date': {
      if (typeof value !== 'string') return { problem: `${showValue(value)} is ${kindOf(value)}, not an ISO 8601 date` };
      const date = normalizeDate(value.trim());
      return 'problem' in date ? { problem: `${showValue(value)} ${date.problem}` } : date;
    }
    case 'email': {
      const address = String(value).trim().toLowerCase();
      return isValidEmail(address) ? { value: address } : { problem: `${showValue(value)} is not a valid email address` };
    }
    case 'url': {
      const url = normalizeUrl(String(value).trim());
      if ('problem' in url) return { problem: `${showValue(value)} ${url.problem}` };
      return { value: rule.lowercase ? url.value.toLowerCase() : url.value };
    }
  }
}
