export const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'date', 'email', 'url'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** One schema field with its options settled. */
export interface FieldRule {
  name: string;
  type: FieldType;
  required: boolean;
  /** Strip surrounding whitespace from a string value (on by default). */
  trim: boolean;
  /** Lower-case the value (string and url fields; email values are always lower-cased). */
  lowercase: boolean;
}

const OPTIONS = new Set(['type', 'required', 'trim', 'lowercase']);
const TEXT_TYPES: ReadonlySet<FieldType> = new Set(['string', 'email', 'url']);
export const MAX_SCHEMA_FIELDS = 200;

function isFieldType(value: unknown): value is FieldType {
  return typeof value === 'string' && (FIELD_TYPES as readonly string[]).includes(value);
}

function ruleOf(name: string, spec: unknown): FieldRule | string {
  if (typeof spec === 'string') {
    if (!isFieldType(spec)) return `schema field "${name}" has unknown type ${JSON.stringify(spec)}; use ${FIELD_TYPES.join(', ')}`;
    return { name, type: spec, required: false, trim: true, lowercase: false };
  }
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
    return `schema field "${name}" must be a type name or {type, required?, trim?, lowercase?}`;
  }
  const options = spec as Record<string, unknown>;
  const unknown = Object.keys(options).filter((key) => !OPTIONS.has(key));
  if (unknown.length > 0) return `schema field "${name}" has unknown option ${unknown.map((k) => JSON.stringify(k)).join(', ')}`;
  if (!isFieldType(options.type)) {
    return `schema field "${name}" has unknown type ${JSON.stringify(options.type)}; use ${FIELD_TYPES.join(', ')}`;
  }
  for (const flag of ['required', 'trim', 'lowercase'] as const) {
    if (options[flag] !== undefined && typeof options[flag] !== 'boolean') return `schema field "${name}" option ${flag} must be true or false`;
  }
  if (options.lowercase === true && !TEXT_TYPES.has(options.type)) {
    return `schema field "${name}" asks for lowercase, which applies to string, email and url fields only`;
  }
  return {
    name,
    type: options.type,
    required: options.required === true,
    trim: options.trim !== false,
    lowercase: options.lowercase === true,
  };
}

/**
 * Reads the payload schema into rules, in the schema's order. Any field that is not a known
 * type with boolean options makes the whole schema invalid: normalizing against half a schema
 * would pass records the caller meant to check.
 */
export function readSchema(schema: unknown): FieldRule[] | { problem: string } {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return { problem: 'payload.schema must be an object of field name → type' };
  }
  const entries = Object.entries(schema);
  if (entries.length === 0) return { problem: 'payload.schema names no fields' };
  if (entries.length > MAX_SCHEMA_FIELDS) return { problem: `payload.schema has ${entries.length} fields, over the limit of ${MAX_SCHEMA_FIELDS}` };
  const rules: FieldRule[] = [];
  for (const [name, spec] of entries) {
    const rule = ruleOf(name, spec);
    if (typeof rule === 'string') return { problem: rule };
    rules.push(rule);
  }
  return rules;
}
