import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { actorIdentity } from '../config/keys.js';
import type { ApiKeyEntry } from '../config/types.js';
import { DomainError, pointer, type ErrorDetail } from '../domain/errors.js';
import type { Identity } from '../domain/identity.js';
import { openText, signText } from './signed-text.js';

/** Every approval link's secret starts with this (a scoped token's with `orct_`). */
export const LINK_PREFIX = 'orcl_';
export const DEFAULT_LINK_MINUTES = 60;
export const MAX_LINK_MINUTES = 24 * 60;
/** Names of approvers one request may make links for. */
export const MAX_LINK_APPROVERS = 20;

interface LinkClaims {
  v: 1;
  id: string;
  approvalId: string;
  actor: string;
  issuedBy: string;
  exp: number;
}

/** What an approval link needs of the approvals: whether an approver may decide one (src/runtime/approvals.ts). */
export interface LinkApprovals {
  linkRefusal(approvalId: string, identity: Identity): Promise<string | null>;
}

export interface IssuedLink {
  actor: string;
  linkId: string;
  expiresAt: string;
  /** The console page with the secret in the URL fragment, which browsers never send to a server. */
  path: string;
}

export type LinkCheck = { ok: true; identity: Identity } | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' | 'no_key'; message: string };

export const isApprovalLink = (text: string) => text.startsWith(LINK_PREFIX);

/**
 * Approval links (docs/approvals-and-reruns.md, "Approval links"): a signed, expiring secret
 * naming one approval and one approver. Presented, it stands for that approver's own key, limited
 * to showing and deciding that approval, so the decision route applies every rule of a click
 * (role, groups, self-approval, quorum) and records the approver as `decidedBy`. A link is used
 * once because an approver decides once: the held run's compare-and-set refuses a second decision
 * by the same actor on every instance, and a decided approval refuses them all. Nothing of a link
 * lives in process memory.
 */
export function createApprovalLinks(deps: { clock: Clock; key: Buffer; keys: readonly ApiKeyEntry[]; approvals: LinkApprovals }) {
  const { clock, key, keys, approvals } = deps;

  async function issue(
    approvalId: string,
    request: { approvers: string[]; expiresInMinutes?: number },
    issuer: Identity,
  ): Promise<{ approvalId: string; links: IssuedLink[] }> {
    const minutes = request.expiresInMinutes ?? DEFAULT_LINK_MINUTES;
    const now = clock.now();
    // Every approver is checked before any link is made: one who may not decide refuses the request.
    const problems: ErrorDetail[] = [];
    const named: Identity[] = [];
    const seen = new Set<string>();
    for (const [index, actor] of request.approvers.entries()) {
      if (seen.has(actor)) continue;
      seen.add(actor);
      const identity = actorIdentity(keys, actor, now);
      const refusal = identity === null ? `${actor} holds no active key of this service` : await approvals.linkRefusal(approvalId, identity);
      if (refusal !== null) problems.push({ path: pointer('body', 'approvers', String(index)), message: refusal });
      else named.push(identity!);
    }
    if (problems.length > 0) {
      throw new DomainError('invalid_request', `An approval link names an approver who may decide approval ${approvalId}: ${problems.map((p) => p.message).join('; ')}`, problems);
    }
    const exp = now.getTime() + minutes * 60_000;
    const links = named.map((identity) => {
      const claims: LinkClaims = { v: 1, id: randomUUID(), approvalId, actor: identity.actor, issuedBy: issuer.actor, exp };
      const secret = signText(key, LINK_PREFIX, claims);
      return {
        actor: identity.actor,
        linkId: claims.id,
        expiresAt: new Date(exp).toISOString(),
        path: `/operator/approvals/link?approval=${encodeURIComponent(approvalId)}#link=${secret}`,
      };
    });
    return { approvalId, links };
  }

  /**
   * Links for every approver who may decide the approval now (alert and chat messages,
   * docs/alerts.md): each actor holding an active key of the service, asked as `issue` asks, at
   * most MAX_LINK_APPROVERS of them, issued by `issuedBy` (the alert rule). None eligible: none made.
   */
  async function linksForEligible(approvalId: string, issuedBy: string): Promise<IssuedLink[]> {
    const now = clock.now();
    const eligible: string[] = [];
    for (const actor of new Set(keys.map((entry) => entry.actor))) {
      if (eligible.length >= MAX_LINK_APPROVERS) break;
      const identity = actorIdentity(keys, actor, now);
      if (identity !== null && (await approvals.linkRefusal(approvalId, identity)) === null) eligible.push(actor);
    }
    if (eligible.length === 0) return [];
    const issuer: Identity = { actor: issuedBy, role: 'admin', apiKeyLabel: issuedBy, apiKeyExpiresAt: null, groups: [] };
    return (await issue(approvalId, { approvers: eligible }, issuer)).links;
  }

  function check(text: string): LinkCheck {
    const opened = openText<LinkClaims>(key, LINK_PREFIX, text);
    if (!opened.ok) return { ok: false, reason: opened.reason, message: 'The approval link is not one this service made' };
    const claims = opened.claims;
    if (claims.v !== 1 || typeof claims.approvalId !== 'string' || typeof claims.actor !== 'string' || typeof claims.exp !== 'number') {
      return { ok: false, reason: 'malformed', message: 'The approval link is not one this service made' };
    }
    const now = clock.now();
    if (claims.exp <= now.getTime()) return { ok: false, reason: 'expired', message: `The approval link expired at ${new Date(claims.exp).toISOString()}` };
    const identity = actorIdentity(keys, claims.actor, now);
    if (identity === null) return { ok: false, reason: 'no_key', message: `The approval link names ${claims.actor}, who no longer holds an active key` };
    return {
      ok: true,
      identity: {
        ...identity,
        apiKeyLabel: `approval-link:${claims.id}`,
        apiKeyExpiresAt: new Date(claims.exp).toISOString(),
        token: { tokenId: claims.id, scope: { kind: 'approval', approvalId: claims.approvalId }, issuedBy: claims.issuedBy },
      },
    };
  }

  return { issue, check, linksForEligible };
}

export type ApprovalLinks = ReturnType<typeof createApprovalLinks>;
