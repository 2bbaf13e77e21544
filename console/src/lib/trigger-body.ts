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

/**
 * A starting payload for a task type, as pretty JSON: the schema's first example, which is a
 * payload the service accepts; without one, its required fields with placeholder values. Fields
 * the form sets through its own controls are left out either way.
 */
export function payloadTemplate(schema: PayloadSchema | null | undefined): string {
  const example = schema?.examples?.find(isPayloadObject);
  const template: Record<string, unknown> = {};
  if (example) {
    for (const [name, value] of Object.entries(example)) if (!FORM_FIELDS.has(name)) template[name] = value;
    return JSON.stringify(template, null, 2);
  }
  for (const name of schema?.required ?? []) {
    if (FORM_FIELDS.has(name)) continue;
    template[name] = placeholder(schema?.properties?.[name] ?? {});
  }
  return JSON.stringify(template, null, 2);
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
