import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema, workspacePath } from '../../task-types/schema-kit.js';

/** The data-extraction task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const dataExtractionType = defineTaskType({
  type: 'data-extraction',
  label: 'Data extraction',
  purpose: 'Extracts records from inline content or a workspace file (csv, json, jsonl, html, markdown, text).',
  agentId: 'data-extraction-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  scopeFields: ['source.path'],
  payloadSchema: payloadSchema('Extract records from inline content or a workspace file.', {
    source: Type.Union(
      [
        Type.Object(
          { content: Type.String({ maxLength: 524_288, description: 'Inline content.' }) },
          { additionalProperties: false, description: 'Inline content.' },
        ),
        Type.Object({ path: workspacePath('File to read.') }, { additionalProperties: false, description: 'Workspace file.' }),
      ],
      { description: 'Either {content} or {path}.' },
    ),
    format: Type.Optional(
      Type.Enum(['csv', 'json', 'jsonl', 'html', 'markdown', 'text'], {
        description: 'Format of the source; when absent, inferred from the extension of source.path.',
      }),
    ),
    fields: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        minItems: 1,
        maxItems: 100,
        description: 'Fields to keep; leave it out to keep every field.',
      }),
    ),
  }, { source: { content: 'id,name\n1,Ada\n2,Grace' }, format: 'csv' }),
  resultSchema: laneResult('Data extraction result: the records and the rejects.', {
    records: Type.Optional(Type.Array(Type.Unknown())),
    recordCount: Type.Optional(Type.Integer({ minimum: 0 })),
  }),
  resultView: { metrics: [{ label: 'records', value: '/recordCount' }] },
  skills: ['workspace-read', 'data-extract'],
});
