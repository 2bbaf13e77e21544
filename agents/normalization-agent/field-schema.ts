import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';

/** The payload's field schema: field name → type name, or {type, required?, trim?, lowercase?}. */
export type FieldSchema = LanePayload<'normalize-data'>['schema'];
type FieldSpec = FieldSchema[string];

/** The field types of the normalize-data schema. */
export type FieldType = Extract<FieldSpec, string>;

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

const TEXT_TYPES: ReadonlySet<FieldType> = new Set(['string', 'email', 'url']);

/** One field's rule. The payload schema has already checked the type name and the boolean options; lowercase on a non-text type is the one contradiction it cannot see. */
function ruleOf(name: string, spec: FieldSpec): FieldRule | string {
  if (typeof spec === 'string') return { name, type: spec, required: false, trim: true, lowercase: false };
  const options = spec;
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
 * Reads the payload schema (1 to 200 fields, checked by the task schema) into rules, in the
 * schema's order. A field whose options contradict each other makes the whole schema invalid:
 * normalizing against half a schema would pass records the caller meant to check.
 */
export function readSchema(schema: FieldSchema): FieldRule[] | { problem: string } {
  const rules: FieldRule[] = [];
  for (const [name, spec] of Object.entries(schema)) {
    const rule = ruleOf(name, spec);
    if (typeof rule === 'string') return { problem: rule };
    rules.push(rule);
  }
  return rules;
}
