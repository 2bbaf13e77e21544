import { useMutation, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useSession } from '../auth/session.js';
import { apiRequest, type ApiResponse } from './client.js';
import { jittered } from './retry.js';

/** A protected read with the session's token; the key is the path, so one route is one cache entry. */
export function useApiQuery<T>(path: string, options: { enabled?: boolean; refetchInterval?: number } = {}) {
  const { token } = useSession();
  const interval = options.refetchInterval;
  return useQuery({
    queryKey: ['api', path] as QueryKey,
    queryFn: async ({ signal }) => (await apiRequest<T>(path, { token, signal })).body,
    enabled: token !== null && (options.enabled ?? true),
    refetchInterval: interval === undefined ? undefined : () => jittered(interval),
  });
}

/** A public read: no token is ever sent (the public proof page). */
export function usePublicQuery<T>(path: string) {
  return useQuery({
    queryKey: ['public', path] as QueryKey,
    queryFn: async ({ signal }) => (await apiRequest<T>(path, { signal })).body,
    refetchInterval: () => jittered(30_000),
  });
}

/** A protected write; on success every protected read is refetched (the service already dropped its cache). */
export function useApiMutation<TBody, TResult>(pathOf: (body: TBody) => string, toBody: (input: TBody) => unknown = (b) => b) {
  const { token } = useSession();
  const queryClient = useQueryClient();
  return useMutation<ApiResponse<TResult>, Error, TBody>({
    mutationFn: (input) => apiRequest<TResult>(pathOf(input), { token, method: 'POST', body: toBody(input) }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api'] }),
  });
}
