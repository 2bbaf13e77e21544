/**
 * The fields the trigger form knows from a catalog entry's payload schema (a JSON Schema object).
 * The catalog route publishes the service's own schemas, so the form has no copy of them.
 */
interface PropertySchema {
  type?: string;
  description?: string;
  enum?: unknown[];
  default?: unknown;
  examples?: unknown[];
  items?: PropertySchema;
  properties?: Record<string, PropertySchema>;
  anyOf?: PropertySchema[];
}
export interface PayloadSchema {
  type?: string;
  description?: string;
  properties?: Record<string, PropertySchema>;
  required?: string[];
  /** Complete example payloads; each passes the schema. */
  examples?: unknown[];
}

/** Fields every payload may carry that the form sets through its own controls. */
const FORM_FIELDS = new Set(['idempotencyKey', 'requiresApproval']);

function placeholder(schema: PropertySchema): unknown {
  if (schema.default !== undefined) return schema.default;
  if (schema.examples && schema.examples.length > 0) return schema.examples[0];
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  switch (schema.type) {
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return '';
  }
}

function isPayloadObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schemas say a value is a place in the workspace in these words (e.g. "Relative to the workspace root."). */
const WORKSPACE_PATH = /relative to the workspace root/i;

const isWorkspacePath = (schema: PropertySchema) => WORKSPACE_PATH.test(schema.description ?? '');

/** Whether `value`, read with its schema, holds a path in the service's workspace somewhere. */
function holdsWorkspacePath(schema: PropertySchema | undefined, value: unknown): boolean {
  if (!schema || value === undefined || value === null) return false;
  if (isWorkspacePath(schema) && (typeof value === 'string' || Array.isArray(value))) return true;
  if (schema.anyOf?.some((branch) => holdsWorkspacePath(branch, value))) return true;
  if (Array.isArray(value)) return value.some((item) => holdsWorkspacePath(schema.items, item));
  if (isPayloadObject(value)) return Object.entries(value).some(([key, child]) => holdsWorkspacePath(schema.properties?.[key], child));
  return false;
}

/**
 * The fields an operator must fill in: those whose example value names a path in the workspace
 * (the schema's own `projects/app`, which this workspace may not have), and required path fields
 * of a schema without an example. The starting payload leaves them empty (required) or out, and
 * the form shows their descriptions.
 */
export function fieldsToFill(schema: PayloadSchema | null | undefined): string[] {
  const example = schema?.examples?.find(isPayloadObject);
  const required = new Set(schema?.required ?? []);
  return Object.entries(schema?.properties ?? {})
    .filter(([name]) => !FORM_FIELDS.has(name))
    .filter(([name, field]) => (example ? holdsWorkspacePath(field, example[name]) : required.has(name) && isWorkspacePath(field)))
    .map(([name]) => name);
}

/**
 * A starting payload for a task type, as pretty JSON: the schema's first example, which is a
 * payload the service accepts, or without one its required fields with placeholder values. Fields
 * naming a workspace path are left empty when required and out otherwise (fieldsToFill); fields
 * the form sets through its own controls are left out either way.
 */
export function payloadTemplate(schema: PayloadSchema | null | undefined): string {
  const example = schema?.examples?.find(isPayloadObject);
  const toFill = new Set(fieldsToFill(schema));
  const required = new Set(schema?.required ?? []);
  const template: Record<string, unknown> = {};
  if (example) {
    for (const [name, value] of Object.entries(example)) if (!FORM_FIELDS.has(name) && !toFill.has(name)) template[name] = value;
  } else {
    for (const name of required) if (!FORM_FIELDS.has(name) && !toFill.has(name)) template[name] = placeholder(schema?.properties?.[name] ?? {});
  }
  for (const name of toFill) if (required.has(name)) template[name] = '';
  return JSON.stringify(template, null, 2);
}

/** One payload field as the trigger form describes it. */
export interface FieldHelp {
  name: string;
  description: string | null;
  required: boolean;
  /** Left empty or out of the starting payload: the operator names a path of this workspace. */
  toFill: boolean;
}

/** The payload's fields with their descriptions, required ones first; the form's own fields are left out. */
export function fieldHelp(schema: PayloadSchema | null | undefined): FieldHelp[] {
  const required = new Set(schema?.required ?? []);
  const toFill = new Set(fieldsToFill(schema));
  return Object.entries(schema?.properties ?? {})
    .filter(([name]) => !FORM_FIELDS.has(name))
    .map(([name, field]) => ({ name, description: field.description ?? null, required: required.has(name), toFill: toFill.has(name) }))
    .sort((a, b) => Number(b.required) - Number(a.required));
}

export interface TriggerForm {
  type: string;
  payloadText: string;
  idempotencyKey: string;
  holdForApproval: boolean;
}

export type TriggerBody = { type: string; payload: Record<string, unknown> };

/**
 * The body of POST /api/tasks/trigger from the form, or the reason it cannot be sent. The
 * idempotency key and the approval hold travel in the payload, where the service reads them.
 */
export function buildTriggerBody(form: TriggerForm): { ok: true; body: TriggerBody } | { ok: false; error: string } {
  if (form.type.trim() === '') return { ok: false, error: 'Choose a task type.' };
  let payload: unknown = {};
  if (form.payloadText.trim() !== '') {
    try {
      payload = JSON.parse(form.payloadText);
    } catch (err) {
      return { ok: false, error: `Payload is not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return { ok: false, error: 'Payload must be a JSON object.' };
  }
  const result: Record<string, unknown> = { ...(payload as Record<string, unknown>) };
  const key = form.idempotencyKey.trim();
  if (key !== '') {
    if (/\s/.test(key) || key.length > 200) return { ok: false, error: 'Idempotency key: 1–200 characters without whitespace.' };
    result.idempotencyKey = key;
  }
  if (form.holdForApproval) result.requiresApproval = true;
  return { ok: true, body: { type: form.type.trim(), payload: result } };
}
