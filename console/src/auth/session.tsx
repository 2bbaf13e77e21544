import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { apiRequest } from '../api/client.js';
import { isSessionExpired } from '../api/errors.js';
import { isRole, type Role } from './roles.js';
import { clearToken, readToken, saveToken } from './token-store.js';

export interface Identity {
  actor: string;
  role: Role;
  apiKeyLabel: string;
  apiKeyExpiresAt: string | null;
}

interface Session {
  token: string | null;
  identity: Identity | null;
  checking: boolean;
  login(token: string): Promise<void>;
  logout(): void;
}

const SessionContext = createContext<Session | null>(null);

async function fetchIdentity(token: string, signal?: AbortSignal): Promise<Identity> {
  const { body } = await apiRequest<Identity>('/api/auth/me', { token, signal });
  if (!isRole(body.role)) throw new Error('the service answered with an unknown role');
  return body;
}

/** Holds the bearer token and the identity GET /api/auth/me gives for it. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [token, setToken] = useState<string | null>(() => readToken());

  const me = useQuery({
    queryKey: ['auth', 'me', token],
    queryFn: ({ signal }) => fetchIdentity(token as string, signal),
    enabled: token !== null,
    staleTime: 60_000,
    retry: false,
  });

  const logout = useCallback(() => {
    clearToken();
    setToken(null);
    queryClient.clear();
  }, [queryClient]);

  const login = useCallback(
    async (candidate: string) => {
      const trimmed = candidate.trim();
      const identity = await fetchIdentity(trimmed);
      saveToken(trimmed);
      queryClient.setQueryData(['auth', 'me', trimmed], identity);
      setToken(trimmed);
    },
    [queryClient],
  );

  // Any read answering 401 means the key expired or was withdrawn: back to the login screen.
  useEffect(() => {
    return queryClient.getQueryCache().subscribe((event) => {
      if (event.type === 'updated' && isSessionExpired(event.query.state.error)) logout();
    });
  }, [queryClient, logout]);

  const value = useMemo<Session>(
    () => ({ token, identity: me.data ?? null, checking: token !== null && me.isPending, login, logout }),
    [token, me.data, me.isPending, login, logout],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
