import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { roleAtLeast } from '../config/keys.js';
import { DomainError, notFound } from '../domain/errors.js';
import type { Identity } from '../domain/identity.js';
import type { StateStore } from '../store/types.js';
import type { TokenScope } from '../domain/token-scope.js';
import { openText, signText } from './signed-text.js';

/** Every scoped token starts with this, so the edge tells one from an API key without a lookup. */
export const TOKEN_PREFIX = 'orct_';
/** Issued tokens, kept so that revocation holds on every instance sharing the store. */
export const TOKEN_COLLECTION = 'scoped-tokens';
export const DEFAULT_TOKEN_MINUTES = 15;
export const MAX_TOKEN_MINUTES = 24 * 60;
/** Records of tokens expired this long ago are dropped when the list is read. */
const KEEP_EXPIRED_MS = 24 * 60 * 60_000;

interface TokenClaims {
  v: 1;
  id: string;
  scope: TokenScope;
  exp: number;
}

export interface TokenRecord {
  tokenId: string;
  scope: TokenScope;
  label: string | null;
  issuedBy: string;
  issuedAt: string;
  expiresAt: string;
  revokedAt: string | null;
  revokedBy: string | null;
}

export interface TokenRequest {
  scope: TokenScope;
  /** Minutes the token lives (default 15, at most 1,440). */
  expiresInMinutes?: number;
  /** A name for the list (which browser, which screen). */
  label?: string;
}

export type TokenRefusal = 'malformed' | 'bad_signature' | 'expired' | 'revoked' | 'unknown';
export type TokenCheck = { ok: true; identity: Identity } | { ok: false; reason: TokenRefusal; message: string };

/** Why a token was refused, said the same way to every caller. */
const TOKEN_REFUSALS: Record<TokenRefusal, string> = {
  malformed: 'The token is not one this service issued',
  bad_signature: 'The token is not one this service issued',
  expired: 'The token has expired',
  revoked: 'The token was revoked',
  unknown: 'The token is not one this service issued',
};

export const isScopedToken = (text: string) => text.startsWith(TOKEN_PREFIX);

function asRecord(doc: Record<string, unknown> | null): TokenRecord | null {
  return doc !== null && typeof doc.tokenId === 'string' ? (doc as unknown as TokenRecord) : null;
}

/** The identity a token stands for: the viewer role, its scope, and the actor `token:<id>`. */
function tokenIdentity(record: TokenRecord): Identity {
  return {
    actor: `token:${record.tokenId}`,
    role: 'viewer',
    apiKeyLabel: `token:${record.tokenId}`,
    apiKeyExpiresAt: record.expiresAt,
    groups: [],
    token: { tokenId: record.tokenId, scope: record.scope, issuedBy: record.issuedBy },
  };
}

/**
 * Short-lived read tokens for browsers (docs/tokens.md). A token is signed text naming its id,
 * scope and expiry, and it is also recorded in the store: the signature makes a forged or altered
 * token fail without a lookup, the record lets an operator revoke one on every instance.
 */
export function createTokenService(deps: { store: StateStore; clock: Clock; key: Buffer }) {
  const { store, clock, key } = deps;

  async function issue(issuer: Identity, request: TokenRequest): Promise<TokenRecord & { token: string }> {
    // A token never carries more than the viewer role, and only a key may mint one: a token
    // minting tokens would outlive its own expiry.
    if (issuer.token !== undefined || !roleAtLeast(issuer.role, 'operator')) {
      throw new DomainError('forbidden', 'Only an operator or admin key may issue tokens');
    }
    if (request.scope.kind === 'approval') {
      throw new DomainError('invalid_request', 'An approval is decided through an approval link (POST /api/approvals/:id/links), not a token');
    }
    const minutes = request.expiresInMinutes ?? DEFAULT_TOKEN_MINUTES;
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_TOKEN_MINUTES) {
      throw new DomainError('invalid_request', `expiresInMinutes must be a whole number from 1 to ${MAX_TOKEN_MINUTES}`, [
        { path: '/body/expiresInMinutes', message: `must be 1..${MAX_TOKEN_MINUTES}` },
      ]);
    }
    const now = clock.now();
    const record: TokenRecord = {
      tokenId: randomUUID(),
      scope: request.scope,
      label: request.label ?? null,
      issuedBy: issuer.actor,
      issuedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + minutes * 60_000).toISOString(),
      revokedAt: null,
      revokedBy: null,
    };
    await store.insertDoc(TOKEN_COLLECTION, record.tokenId, { ...record });
    const claims: TokenClaims = { v: 1, id: record.tokenId, scope: record.scope, exp: Date.parse(record.expiresAt) };
    return { ...record, token: signText(key, TOKEN_PREFIX, claims) };
  }

  async function check(text: string): Promise<TokenCheck> {
    const refused = (reason: TokenRefusal): TokenCheck => ({ ok: false, reason, message: TOKEN_REFUSALS[reason] });
    const opened = openText<TokenClaims>(key, TOKEN_PREFIX, text);
    if (!opened.ok) return refused(opened.reason);
    const { claims } = opened;
    if (claims.v !== 1 || typeof claims.id !== 'string' || typeof claims.exp !== 'number') return refused('malformed');
    if (claims.exp <= clock.now().getTime()) return refused('expired');
    const record = asRecord(await store.getDoc(TOKEN_COLLECTION, claims.id));
    if (record === null) return refused('unknown');
    if (record.revokedAt !== null) return refused('revoked');
    return { ok: true, identity: tokenIdentity(record) };
  }

  async function revoke(tokenId: string, by: Identity): Promise<TokenRecord> {
    const record = asRecord(await store.getDoc(TOKEN_COLLECTION, tokenId));
    if (record === null) throw notFound(`token ${tokenId}`);
    if (record.revokedAt !== null) return record;
    const revoked: TokenRecord = { ...record, revokedAt: clock.now().toISOString(), revokedBy: by.actor };
    await store.putDoc(TOKEN_COLLECTION, tokenId, { ...revoked });
    return revoked;
  }

  /** Tokens not yet expired, newest first (revoked ones included, marked). */
  async function list(): Promise<TokenRecord[]> {
    const now = clock.now().getTime();
    const records = (await store.listDocs(TOKEN_COLLECTION)).map(asRecord).filter((r): r is TokenRecord => r !== null);
    for (const stale of records.filter((r) => Date.parse(r.expiresAt) < now - KEEP_EXPIRED_MS)) {
      await store.deleteDoc(TOKEN_COLLECTION, stale.tokenId);
    }
    return records.filter((r) => Date.parse(r.expiresAt) > now).sort((a, b) => b.issuedAt.localeCompare(a.issuedAt));
  }

  return { issue, check, revoke, list };
}

export type TokenService = ReturnType<typeof createTokenService>;
