/**
 * The bearer token lives in sessionStorage: it survives reloads and redirects within the tab
 * and is gone when the tab closes. It is never logged and never put in a URL.
 */
const KEY = 'orchestrator.console.token';

export function readToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function clearToken(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // storage unavailable: nothing was kept
  }
}
