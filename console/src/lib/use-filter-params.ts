import { useSearchParams } from 'react-router';

/**
 * List filters live in the page's query string, so a filtered view can be reloaded or shared.
 * Changing any filter but the offset goes back to the first page.
 */
export function useFilterParams() {
  const [params, setParams] = useSearchParams();
  const update = (patch: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(patch)) {
      if (value === null || value === '') next.delete(key);
      else next.set(key, value);
    }
    if (!('offset' in patch)) next.delete('offset');
    setParams(next);
  };
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  return { params, update, offset };
}
