import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useSession } from '../auth/session.js';
import { apiRequest, type ApiResponse } from './client.js';

/**
 * A protected write with any method (PATCH and DELETE for schedules); like useApiMutation, every
 * protected read is refetched after it succeeds.
 */
export function useApiWrite<TInput, TResult>(method: 'POST' | 'PATCH' | 'DELETE', pathOf: (input: TInput) => string, toBody?: (input: TInput) => unknown) {
  const { token } = useSession();
  const queryClient = useQueryClient();
  return useMutation<ApiResponse<TResult>, Error, TInput>({
    mutationFn: (input) => apiRequest<TResult>(pathOf(input), { token, method, body: toBody?.(input) }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api'] }),
  });
}
