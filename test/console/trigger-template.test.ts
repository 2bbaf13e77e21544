import { describe, expect, it } from 'vitest';
import { fieldHelp, fieldsToFill, payloadTemplate, type PayloadSchema } from '../../console/src/lib/trigger-body.js';
import { publicCatalog } from '../../src/runtime/catalog.js';
import { getPayloadSchema } from '../../src/lanes/payload-schemas.js';

/** Each type's payload schema as the catalog route publishes it (JSON), which is what the form reads. */
const published = (type: string) => JSON.parse(JSON.stringify(getPayloadSchema(type))) as PayloadSchema;

describe('the trigger form\'s starting payload', () => {
  it('names no workspace path of the schema\'s example: path fields stay empty (required) or out, with their description', () => {
    const audit = published('security-audit');
    expect(fieldsToFill(audit)).toEqual(['scope']);
    expect(JSON.parse(payloadTemplate(audit))).toEqual({ type: 'scan', scope: '' });
    const scope = fieldHelp(audit).find((f) => f.name === 'scope');
    expect(scope).toMatchObject({ required: true, toFill: true });
    expect(scope?.description).toMatch(/workspace root/);

    // A nested path (a change's file) takes its field out; the rest of the example stays.
    const refactor = JSON.parse(payloadTemplate(published('build-refactor'))) as Record<string, unknown>;
    expect(refactor.scope).toBe('');
    expect(refactor).not.toHaveProperty('changes');
    expect(refactor.intent).toBe('Raise the request timeout');

    // Inline content is not a path: the example stays whole.
    expect(fieldsToFill(published('data-extraction'))).toEqual([]);
    expect(JSON.parse(payloadTemplate(published('data-extraction')))).toMatchObject({ source: { content: 'id,name\n1,Ada\n2,Grace' }, format: 'csv' });
  });

  it('never carries the examples\' own project path for any type of the catalog', () => {
    const named: string[] = [];
    for (const entry of publicCatalog()) {
      const template = payloadTemplate(published(entry.type));
      if (template.includes('projects/app')) named.push(entry.type);
    }
    expect(named).toEqual([]);
  });
});
