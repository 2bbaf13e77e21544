/** What a bearer key may do; the configuration assigns one to each key. */
export type Role = 'viewer' | 'operator' | 'admin';
import type { TokenScope } from './token-scope.js';

/** Who asked for a piece of work; the HTTP layer derives it from the bearer key, never from a body. */
export interface Identity {
  actor: string;
  role: Role;
  apiKeyLabel: string;
  apiKeyExpiresAt: string | null;
  /** The key's approver groups (API_KEY_ROTATION `groups`); absent or empty: none. */
  groups?: readonly string[];
  /** Set when a scoped token (not an API key) authenticated the request: what it may read. */
  token?: { tokenId: string; scope: TokenScope; issuedBy: string };
}
