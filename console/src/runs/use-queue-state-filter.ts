import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../api/client.js';
import { acceptsQueueState, type OpenApiDocument } from './held-filter.js';

const OPENAPI_PATH = '/api/openapi.json';

/**
 * Whether this service filters the runs list on the queue state, read once per session from its
 * own (public) OpenAPI document: asking a service that does not know the parameter would be
 * refused, so the console only sends it where it is accepted. Null until known.
 */
export function useQueueStateFilter(): boolean | null {
  const answer = useQuery({
    queryKey: ['openapi', 'runs-queue-state'],
    queryFn: async ({ signal }) => acceptsQueueState((await apiRequest<OpenApiDocument>(OPENAPI_PATH, { signal })).body),
    staleTime: Infinity,
    gcTime: Infinity,
    retry: 1,
  });
  if (answer.isPending) return null;
  return answer.data ?? false;
}
