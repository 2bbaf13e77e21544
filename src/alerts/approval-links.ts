import type { AlertSinkConfig } from '../config/alerts.js';
import type { AlertNotice } from './types.js';

/**
 * Approval links in alert messages (docs/alerts.md, "Approval links in messages"). A firing notice
 * about an approval (labels `approvalId`) sent to a webhook or chat sink carries, made at send
 * time through the approval links' own machinery (POST /api/approvals/:id/links: same signing,
 * expiry, one decision per approver), a link for each approver who may decide it, or the console's
 * approve page when none can be named. The link secrets live only in the request sent: never in
 * the stored notice, its delivery record (`GET /api/alerts`) or a log line.
 */

/** One approver's link: the console page with the one-time secret in its URL fragment. */
export interface ApproverLink {
  actor: string;
  url: string;
  expiresAt: string;
}

export interface NoticeApprovalLinks {
  approvalId: string;
  /** The console's approve page for this approval (no secret): for whoever holds a key. */
  pageUrl: string;
  /** One per eligible approver; empty when none can be named (then pageUrl is the way in). */
  links: ApproverLink[];
}

/** What alerting needs of the approval links (src/tokens/approval-links.ts, linksForEligible). */
export interface ApprovalLinkSource {
  /** Links for every approver who may decide the approval now (paths, with the secret in the fragment). */
  linksForEligible(approvalId: string): Promise<Array<{ actor: string; path: string; expiresAt: string }>>;
}

/** The approve page of one approval in the console (docs/console.md). */
export const approvalPagePath = (approvalId: string) => `/operator/approvals?approval=${encodeURIComponent(approvalId)}`;

/** A link secret as it appears in a URL fragment (`#link=orcl_<claims>.<mac>`), or any cut-off part of one. */
const LINK_SECRET = /orcl_[A-Za-z0-9_.-]*/g;

/** Text with every approval link secret replaced: what a delivery record or a log line may keep of a receiver's answer. */
export function withoutLinkSecrets(text: string): string {
  return text.replace(LINK_SECRET, '[redacted]');
}

/** Whether the notice's sink gets approval links: a firing notice about an approval, to a sink that carries them. */
export function carriesApprovalLinks(sink: AlertSinkConfig, notice: AlertNotice): boolean {
  return notice.kind === 'firing' && notice.labels.approvalId !== undefined && (sink.kind === 'webhook' || sink.kind === 'chat');
}

/**
 * The links of one notice at send time. A failure to make them (a store away, the approval decided
 * meanwhile) leaves the page URL alone: the alert still goes out.
 */
export async function noticeApprovalLinks(
  approvalId: string,
  source: ApprovalLinkSource,
  baseUrl: string | null,
  onError: (err: unknown) => void,
): Promise<NoticeApprovalLinks> {
  const absolute = (path: string) => (baseUrl === null ? path : `${baseUrl.replace(/\/+$/, '')}${path}`);
  let links: ApproverLink[] = [];
  try {
    links = (await source.linksForEligible(approvalId)).map((link) => ({ actor: link.actor, url: absolute(link.path), expiresAt: link.expiresAt }));
  } catch (err) {
    onError(err);
  }
  return { approvalId, pageUrl: absolute(approvalPagePath(approvalId)), links };
}
