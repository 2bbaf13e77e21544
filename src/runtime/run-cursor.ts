import { invalidRequest, pointer } from '../domain/errors.js';

/**
 * Opaque continuation token of the runs list. It carries the admission seq of the last run on a
 * page, so the next page starts after it even when new runs were admitted in between (an offset
 * would shift).
 */
export function encodeRunCursor(seq: number): string {
  return Buffer.from(`seq:${seq}`, 'utf8').toString('base64url');
}

export function decodeRunCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^seq:(\d{1,15})$/.exec(text);
  if (!match) throw invalidRequest('cursor is not a token returned by this list', [{ path: pointer('querystring', 'cursor'), message: 'invalid cursor' }]);
  return Number(match[1]);
}
