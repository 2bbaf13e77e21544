import { describeClientError, OrchApiError } from '../client/index.js';

/**
 * A field path of a validation detail as the user typed it: `/body/payload/scope` is
 * `payload.scope`, `/querystring/limit` is `query.limit` (JSON Pointer segments, unescaped).
 */
export function fieldName(pointer: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (segments[0] === 'body' || segments[0] === 'params') segments.shift();
  else if (segments[0] === 'querystring') segments[0] = 'query';
  return segments.length === 0 ? '(request body)' : segments.join('.');
}

/**
 * The lines that report a failed call: code, message and request id, then one line per
 * validation detail (`  payload.scope: is required`), so every wrong field shows at once.
 */
export function errorReport(err: unknown): string[] {
  const lines = [describeClientError(err)];
  if (err instanceof OrchApiError && Array.isArray(err.details)) {
    for (const detail of err.details as unknown[]) {
      if (typeof detail !== 'object' || detail === null) continue;
      const { path, message } = detail as { path?: unknown; message?: unknown };
      if (typeof message !== 'string') continue;
      lines.push(`  ${typeof path === 'string' ? `${fieldName(path)}: ` : ''}${message}`);
    }
  }
  return lines;
}
