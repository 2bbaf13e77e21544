/** One leaf field of a nested record: a dotted path and its display text. */
export interface Leaf {
  path: string;
  value: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isPrimitive = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);

export function formatScalar(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(Math.round(value * 1000) / 1000);
  return String(value);
}

/**
 * Nested aggregates are shown through their leaf fields, never as raw objects: each leaf becomes
 * a row `a.b[0].c = value`. Lists of scalars read as one comma-separated value; at most `limit`
 * rows are produced (the last says how many were left out).
 */
export function flattenLeaves(value: unknown, prefix = '', limit = 200): Leaf[] {
  const out: Leaf[] = [];
  let omitted = 0;
  const push = (path: string, text: string) => {
    if (out.length < limit) out.push({ path, value: text });
    else omitted += 1;
  };
  const walk = (node: unknown, path: string) => {
    if (isPrimitive(node) || node === undefined) return push(path || '(value)', formatScalar(node));
    if (Array.isArray(node)) {
      if (node.length === 0) return push(path, '(none)');
      if (node.every(isPrimitive)) return push(path, node.map(formatScalar).join(', '));
      node.forEach((item, i) => walk(item, `${path}[${i}]`));
      return;
    }
    if (isRecord(node)) {
      const entries = Object.entries(node);
      if (entries.length === 0) return push(path, '(empty)');
      for (const [key, child] of entries) walk(child, path ? `${path}.${key}` : key);
    }
  };
  walk(value, prefix);
  if (omitted > 0) out.push({ path: '…', value: `${omitted} more fields not shown` });
  return out;
}
