import { invalidRequest, pointer } from '../domain/errors.js';

/**
 * The creation-time range of a runs listing: [createdFrom, createdTo). Each bound must be an
 * instant, and a range that ends at or before its start is refused rather than answered with an
 * empty page, since it is always a caller's mistake (for example swapped bounds).
 */
export function checkCreatedRange(createdFrom: string | undefined, createdTo: string | undefined): void {
  const from = instant(createdFrom, 'createdFrom');
  const to = instant(createdTo, 'createdTo');
  if (from !== undefined && to !== undefined && from >= to) {
    throw invalidRequest('createdFrom must be before createdTo', [
      { path: pointer('querystring', 'createdTo'), message: 'must be after createdFrom' },
    ]);
  }
}

function instant(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw invalidRequest(`${name} is not a date-time`, [{ path: pointer('querystring', name), message: 'must be a date-time' }]);
  return at;
}
