/** `?a=1&b=x` from the set values only (empty strings, null, undefined and false are left out). */
export function toQueryString(params: Record<string, string | number | boolean | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '' || value === false) continue;
    search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** A path segment for ids that may hold `:` or `/` (run ids such as `approval-replay:<task_id>`). */
export const segment = (id: string): string => encodeURIComponent(id);
