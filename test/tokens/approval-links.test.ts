import { describe, expect, it } from 'vitest';
import type { ApiKeyEntry } from '../../src/config/types.js';
import type { Identity } from '../../src/domain/identity.js';
import { createApprovalLinks, LINK_PREFIX, type LinkApprovals } from '../../src/tokens/approval-links.js';
import { signingKey } from '../../src/tokens/signed-text.js';
import { manualClock } from '../support/clocks.js';

const key = (actor: string, extra: Partial<ApiKeyEntry> = {}): ApiKeyEntry => ({
  secret: `${actor}-secret`,
  label: actor,
  actor,
  version: null,
  role: 'operator',
  expiresAt: null,
  active: true,
  groups: [],
  ...extra,
});
const issuer: Identity = { actor: 'ops', role: 'operator', apiKeyLabel: 'ops', apiKeyExpiresAt: null };
/** Every approver may decide, except one named `requester`. */
const approvals: LinkApprovals = { linkRefusal: async (_id, identity) => (identity.actor === 'requester' ? 'requester asked for it' : null) };
const secretOf = (path: string) => path.slice(path.indexOf('#link=') + 6);

describe('approval links', () => {
  it('stand for the named approver on their approval until they expire (default one hour)', async () => {
    const clock = manualClock('2026-06-01T12:00:00.000Z');
    const links = createApprovalLinks({ clock, key: signingKey(null, 'w'), keys: [key('alice', { groups: ['release'] }), key('alice', { role: 'admin', label: 'alice:v2' })], approvals });
    const { links: made } = await links.issue('task-1', { approvers: ['alice'] }, issuer);
    expect(made).toMatchObject([{ actor: 'alice', expiresAt: '2026-06-01T13:00:00.000Z' }]);
    const secret = secretOf(made[0]!.path);
    expect(secret.startsWith(LINK_PREFIX)).toBe(true);
    const checked = links.check(secret);
    expect(checked).toMatchObject({
      ok: true,
      identity: { actor: 'alice', role: 'admin', apiKeyExpiresAt: '2026-06-01T13:00:00.000Z', token: { scope: { kind: 'approval', approvalId: 'task-1' }, issuedBy: 'ops' } },
    });
    clock.advance(60 * 60_000);
    expect(links.check(secret)).toMatchObject({ ok: false, reason: 'expired', message: 'The approval link expired at 2026-06-01T13:00:00.000Z' });
  });

  it('refuses a link made with another secret, altered, or whose approver no longer holds a key', async () => {
    const clock = manualClock();
    const keys = [key('alice'), key('bob')];
    const links = createApprovalLinks({ clock, key: signingKey('one', 'w'), keys, approvals });
    const other = createApprovalLinks({ clock, key: signingKey('two', 'w'), keys, approvals });
    const secret = secretOf((await other.issue('task-1', { approvers: ['alice'] }, issuer)).links[0]!.path);
    expect(links.check(secret)).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(links.check(`orct_${secret.slice(LINK_PREFIX.length)}`)).toMatchObject({ ok: false, reason: 'malformed' });
    const bobSecret = secretOf((await links.issue('task-1', { approvers: ['bob'] }, issuer)).links[0]!.path);
    keys[1] = key('bob', { active: false });
    const withoutBob = createApprovalLinks({ clock, key: signingKey('one', 'w'), keys, approvals });
    expect(withoutBob.check(bobSecret)).toMatchObject({ ok: false, reason: 'no_key' });
  });

  it('makes no link when one approver may not decide', async () => {
    const links = createApprovalLinks({ clock: manualClock(), key: signingKey(null, 'w'), keys: [key('alice'), key('requester')], approvals });
    await expect(links.issue('task-1', { approvers: ['alice', 'requester'] }, issuer)).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ path: '/body/approvers/1', message: 'requester asked for it' }],
    });
  });
});
