/**
 * The allowlist of what public proof routes may publish. A public body is built only from
 * fields named here, and each value must also pass its rule: a member of a fixed vocabulary, an
 * ISO timestamp, a count, a ratio or a flag. Free text from the store (summaries, errors, payloads,
 * run ids, paths, actor labels) has no rule and so can never pass, whatever field it sits in.
 * Anything not allowed is dropped, silently; nothing is redacted in place.
 */
export type FieldRule =
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'timestamp' }
  | { kind: 'count' }
  | { kind: 'ratio' }
  | { kind: 'flag' }
  /** An identifier the service derived by hashing (never the stored id itself). */
  | { kind: 'digest' };

export type FieldRules = Record<string, FieldRule>;

export const oneOf = (values: readonly string[]): FieldRule => ({ kind: 'enum', values });
export const TIMESTAMP: FieldRule = { kind: 'timestamp' };
export const COUNT: FieldRule = { kind: 'count' };
export const RATIO: FieldRule = { kind: 'ratio' };
export const FLAG: FieldRule = { kind: 'flag' };
export const DIGEST: FieldRule = { kind: 'digest' };

const PUBLIC_DIGEST = /^[a-z]{2}_[0-9a-f]{16}$/;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

export function passes(rule: FieldRule, value: unknown): boolean {
  switch (rule.kind) {
    case 'enum':
      return typeof value === 'string' && rule.values.includes(value);
    case 'timestamp':
      return typeof value === 'string' && ISO_TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value));
    case 'count':
      return typeof value === 'number' && Number.isInteger(value) && value >= 0;
    case 'ratio':
      return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1;
    case 'flag':
      return typeof value === 'boolean';
    case 'digest':
      return typeof value === 'string' && PUBLIC_DIGEST.test(value);
  }
}

/** The allowed fields of `source` whose values pass their rule; everything else is left out. */
export function pickPublic(source: Record<string, unknown>, rules: FieldRules): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [field, rule] of Object.entries(rules)) {
    const value = source[field];
    if (passes(rule, value)) out[field] = value as string | number | boolean;
  }
  return out;
}
