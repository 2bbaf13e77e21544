import type { ErrorDetail } from '../domain/errors.js';
import { schemaProblems } from './schema-check.js';
import type { TaskType } from './task-type.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The problems of a successful attempt's result against its type's result schema, empty when it
 * conforms. An in-process handler's result arrives in its `{status, result}` envelope: its own
 * fields are the envelope's `result`. Paths point into the run's stored `result`.
 */
export function resultProblems(t: Pick<TaskType, 'executor' | 'resultSchema'>, result: unknown): ErrorDetail[] {
  if (t.executor === 'handler') {
    if (isRecord(result) && 'status' in result) return schemaProblems(t.resultSchema, result.result ?? {}, '/result', 'result');
    // A handler that answered nothing stores nothing: there is no shape to get wrong.
    if (result === null || result === undefined) return [];
  }
  return schemaProblems(t.resultSchema, result, '', 'result');
}

/** One line naming every field a malformed result got wrong. */
export function describeResultProblems(type: string, problems: readonly ErrorDetail[]): string {
  const listed = problems.slice(0, 5).map((p) => `${p.path || '(the result)'} ${p.message}`);
  const more = problems.length > 5 ? ` and ${problems.length - 5} more` : '';
  return `The lane's result does not match the ${type} result schema: ${listed.join('; ')}${more}; it was not stored`;
}
