import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Identity } from '../../src/domain/identity.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { createTokenService, TOKEN_PREFIX, type TokenService } from '../../src/tokens/scoped-tokens.js';
import { scopeAllows } from '../../src/domain/token-scope.js';
import { signingKey, signText } from '../../src/tokens/signed-text.js';
import { manualClock } from '../support/clocks.js';
import { tempDir } from '../support/config.js';

const operator: Identity = { actor: 'ops', role: 'operator', apiKeyLabel: 'ops:v2', apiKeyExpiresAt: null };
const viewer: Identity = { actor: 'watcher', role: 'viewer', apiKeyLabel: 'watcher', apiKeyExpiresAt: null };
const KEY = signingKey(null, 'test-webhook-secret');

/** Flips one character of the text at `index` to another base64url character. */
function flip(text: string, index: number): string {
  const c = text[index] === 'A' ? 'B' : 'A';
  return `${text.slice(0, index)}${c}${text.slice(index + 1)}`;
}

describe('scoped tokens', () => {
  let store: StateStore;
  let clock: ReturnType<typeof manualClock>;
  let tokens: TokenService;
  beforeEach(async () => {
    store = openStateStore(join(tempDir('orch-tokens-'), 'state.json'), { logger: pino({ level: 'silent' }) });
    await store.open();
    clock = manualClock('2026-06-01T12:00:00.000Z');
    tokens = createTokenService({ store, clock, key: KEY });
  });
  afterEach(async () => {
    await store.close();
  });

  it('issues a viewer token for its scope that checks until it expires (default 15 minutes)', async () => {
    const issued = await tokens.issue(operator, { scope: { kind: 'run', runId: 'run-1' } });
    expect(issued.token.startsWith(TOKEN_PREFIX)).toBe(true);
    expect(issued).toMatchObject({ issuedBy: 'ops', expiresAt: '2026-06-01T12:15:00.000Z', revokedAt: null });
    const checked = await tokens.check(issued.token);
    expect(checked).toEqual({
      ok: true,
      identity: {
        actor: `token:${issued.tokenId}`,
        role: 'viewer',
        apiKeyLabel: `token:${issued.tokenId}`,
        apiKeyExpiresAt: '2026-06-01T12:15:00.000Z',
        groups: [],
        token: { tokenId: issued.tokenId, scope: { kind: 'run', runId: 'run-1' }, issuedBy: 'ops' },
      },
    });
    clock.advance(15 * 60_000 - 1);
    expect((await tokens.check(issued.token)).ok).toBe(true);
    clock.advance(1);
    expect(await tokens.check(issued.token)).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('refuses a token whose claims or signature were altered, or that another key signed', async () => {
    const { token, tokenId } = await tokens.issue(operator, { scope: { kind: 'run', runId: 'run-1' }, expiresInMinutes: 60 });
    const dot = token.indexOf('.');
    expect(await tokens.check(flip(token, TOKEN_PREFIX.length + 3))).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(await tokens.check(flip(token, dot + 3))).toMatchObject({ ok: false, reason: 'bad_signature' });
    // A wider scope written into the claims with the signature kept.
    const widened = signText(signingKey('another-secret', 'x'), TOKEN_PREFIX, { v: 1, id: tokenId, scope: { kind: 'read' }, exp: Date.parse('2030-01-01') });
    expect(await tokens.check(widened)).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(await tokens.check(`${token}.extra`)).toMatchObject({ ok: false, reason: 'malformed' });
    expect(await tokens.check('orct_')).toMatchObject({ ok: false, reason: 'malformed' });
    // Signed with the right key but never issued (no record): refused too.
    const unissued = signText(KEY, TOKEN_PREFIX, { v: 1, id: 'not-issued', scope: { kind: 'read' }, exp: Date.parse('2030-01-01') });
    expect(await tokens.check(unissued)).toMatchObject({ ok: false, reason: 'unknown' });
  });

  it('revokes a token for every checker reading the same store', async () => {
    const { token, tokenId } = await tokens.issue(operator, { scope: { kind: 'read' } });
    const otherInstance = createTokenService({ store, clock, key: KEY });
    expect((await otherInstance.check(token)).ok).toBe(true);
    const revoked = await tokens.revoke(tokenId, operator);
    expect(revoked).toMatchObject({ revokedBy: 'ops', revokedAt: '2026-06-01T12:00:00.000Z' });
    expect(await otherInstance.check(token)).toMatchObject({ ok: false, reason: 'revoked' });
    expect((await tokens.list()).map((t) => [t.tokenId, t.revokedBy])).toEqual([[tokenId, 'ops']]);
    await expect(tokens.revoke('no-such-token', operator)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('lets only keys of operators and admins issue, within 1 minute to 24 hours', async () => {
    await expect(tokens.issue(viewer, { scope: { kind: 'read' } })).rejects.toMatchObject({ code: 'forbidden' });
    const { token } = await tokens.issue(operator, { scope: { kind: 'read' } });
    const checked = await tokens.check(token);
    if (!checked.ok) throw new Error('token refused');
    // A token is a viewer, and even an admin's token cannot mint another.
    await expect(tokens.issue({ ...checked.identity, role: 'admin' }, { scope: { kind: 'read' } })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(tokens.issue(operator, { scope: { kind: 'read' }, expiresInMinutes: 0 })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(tokens.issue(operator, { scope: { kind: 'read' }, expiresInMinutes: 24 * 60 + 1 })).rejects.toMatchObject({ code: 'invalid_request' });
    expect((await tokens.issue(operator, { scope: { kind: 'read' }, expiresInMinutes: 24 * 60 })).expiresAt).toBe('2026-06-02T12:00:00.000Z');
  });

  it('lists tokens not yet expired and forgets those expired a day ago', async () => {
    const short = await tokens.issue(operator, { scope: { kind: 'read' }, expiresInMinutes: 1 });
    clock.advance(1000);
    const long = await tokens.issue(operator, { scope: { kind: 'flow', flowId: 'f1' }, expiresInMinutes: 120 });
    expect((await tokens.list()).map((t) => t.tokenId)).toEqual([long.tokenId, short.tokenId]);
    clock.advance(2 * 60_000);
    expect((await tokens.list()).map((t) => t.tokenId)).toEqual([long.tokenId]);
    clock.advance(27 * 60 * 60_000);
    await tokens.list();
    expect(await store.listDocs('scoped-tokens')).toEqual([]);
  });
});

describe('what a scope reads', () => {
  it('lets a run token read that run only, a flow token its flow and step runs, a read token everything', () => {
    const run = { kind: 'run', runId: 'r1' } as const;
    const flow = { kind: 'flow', flowId: 'f1' } as const;
    expect(scopeAllows(run, { kind: 'run', runId: 'r1' })).toBe(true);
    expect(scopeAllows(run, { kind: 'run', runId: 'r2' })).toBe(false);
    expect(scopeAllows(run, { kind: 'runs', idPrefix: 'r1' })).toBe(false);
    expect(scopeAllows(run, { kind: 'feed' })).toBe(false);
    expect(scopeAllows(run, undefined)).toBe(false);
    expect(scopeAllows(run, { kind: 'self' })).toBe(true);
    expect(scopeAllows(flow, { kind: 'run', runId: 'flow:f1:build' })).toBe(true);
    expect(scopeAllows(flow, { kind: 'run', runId: 'flow:f10:build' })).toBe(false);
    expect(scopeAllows(flow, { kind: 'runs', idPrefix: 'flow:f1:' })).toBe(true);
    expect(scopeAllows(flow, { kind: 'runs', idPrefix: 'flow:f' })).toBe(false);
    expect(scopeAllows(flow, { kind: 'runs', idPrefix: undefined })).toBe(false);
    expect(scopeAllows(flow, { kind: 'flow', flowId: 'f1' })).toBe(true);
    expect(scopeAllows({ kind: 'read' }, undefined)).toBe(true);
    expect(scopeAllows({ kind: 'read' }, { kind: 'feed' })).toBe(true);
  });
});
