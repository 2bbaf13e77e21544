import type { Logger } from 'pino';
import type { AlertSinkConfig, SinkRetry } from '../config/alerts.js';
import type { OutboundNetwork } from '../net/guarded-fetch.js';
import type { StateStore } from '../store/types.js';
import { carriesApprovalLinks, noticeApprovalLinks, withoutLinkSecrets, type ApprovalLinkSource, type NoticeApprovalLinks } from './approval-links.js';
import { sendToSink } from './send.js';
import { sinkRequest } from './sink-request.js';
import { ALERT_COLLECTIONS, type AlertDelivery, type AlertNotice } from './types.js';

export interface DeliveryDeps {
  store: StateStore;
  sinks: Record<string, AlertSinkConfig>;
  logger: Logger;
  ownerId: string;
  network?: OutboundNetwork;
  /** Approval links for approval notices (approval-links.ts); absent: none are made. */
  approvalLinks?: { source: ApprovalLinkSource; consoleUrl: string | null };
}

/**
 * An attempt claimed this long past its sink's timeout without a recorded outcome was lost with
 * its instance: it counts as failed and the next attempt may be claimed.
 */
const ABANDONED_AFTER_MS = 30_000;

export function deliveryId(noticeId: string, sink: string): string {
  return `${noticeId}|${sink}`;
}

/** Exponential backoff: base × 2^(attempt − 1), capped. */
export function retryDelayMs(retry: SinkRetry, attempt: number): number {
  return Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** Math.max(0, attempt - 1));
}

/** A notice's delivery to one sink as stored, or the pending one it starts as. */
export function deliveryOf(notice: AlertNotice, sink: string, stored: Map<string, AlertDelivery>): AlertDelivery {
  const id = deliveryId(notice.noticeId, sink);
  return (
    stored.get(id) ?? {
      deliveryId: id,
      noticeId: notice.noticeId,
      sink,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: notice.at,
      lastError: null,
      deliveredAt: null,
      updatedAt: notice.at,
    }
  );
}

/** The delivery after attempt `attempt` ended with `error` (null: delivered); no `retry`: no further attempt. */
function afterAttempt(delivery: AlertDelivery, retry: SinkRetry | null, attempt: number, error: string | null, now: Date): AlertDelivery {
  const at = now.toISOString();
  if (error === null) return { ...delivery, status: 'delivered', attempts: attempt, lastError: null, deliveredAt: at, updatedAt: at };
  // A receiver's answer may echo what it was sent: no approval link secret is kept of it.
  error = withoutLinkSecrets(error);
  const dead = retry === null || attempt >= retry.maxAttempts;
  return {
    ...delivery,
    status: dead ? 'dead' : 'pending',
    attempts: attempt,
    lastError: error,
    nextAttemptAt: new Date(now.getTime() + (retry === null || dead ? 0 : retryDelayMs(retry, attempt))).toISOString(),
    updatedAt: at,
  };
}

/** Every stored notice and delivery, read once per pass. */
export async function readDeliveryState(store: StateStore): Promise<{ notices: AlertNotice[]; deliveries: Map<string, AlertDelivery> }> {
  const notices = ((await store.listDocs(ALERT_COLLECTIONS.notices)) as unknown as AlertNotice[]).sort(
    (a, b) => a.at.localeCompare(b.at) || (a.kind === b.kind ? 0 : a.kind === 'firing' ? -1 : 1),
  );
  const deliveries = new Map(((await store.listDocs(ALERT_COLLECTIONS.deliveries)) as unknown as AlertDelivery[]).map((d) => [d.deliveryId, d]));
  return { notices, deliveries };
}

/**
 * One delivery pass: every due delivery is attempted, sinks side by side, each sink's notices in
 * the order they were made. An attempt is claimed in the store (`insertDoc` of
 * `<delivery>#<attempt>`) before it is sent, so instances sharing the store never send the same
 * attempt twice; its outcome is stored before the next is due. A sink that fails once is left
 * for the rest of the pass, so a later notice (a recovery) never overtakes an earlier one.
 * Returns how many attempts this instance made.
 */
export async function deliverDue(deps: DeliveryDeps, now: () => Date): Promise<number> {
  const { store, sinks, logger, ownerId } = deps;
  const { notices, deliveries } = await readDeliveryState(store);
  const queues = new Map<string, AlertDelivery[]>();
  const noticeById = new Map(notices.map((n) => [n.noticeId, n]));
  for (const notice of notices) {
    for (const sink of notice.sinks) {
      const delivery = deliveryOf(notice, sink, deliveries);
      if (delivery.status === 'pending') queues.set(sink, [...(queues.get(sink) ?? []), delivery]);
    }
  }
  let attempted = 0;
  // Made afresh for each attempt and kept nowhere but in the request: a retry carries new links.
  const linksFor = async (sink: AlertSinkConfig, notice: AlertNotice): Promise<NoticeApprovalLinks | undefined> => {
    if (!deps.approvalLinks || !carriesApprovalLinks(sink, notice)) return undefined;
    const { source, consoleUrl } = deps.approvalLinks;
    return noticeApprovalLinks(notice.labels.approvalId!, source, consoleUrl, (err) =>
      logger.warn({ err, noticeId: notice.noticeId }, 'approval links not made; the notice names the approve page'),
    );
  };
  const drain = async (sinkName: string, queue: AlertDelivery[]) => {
    const sink = sinks[sinkName];
    for (const delivery of queue) {
      const at = now();
      if (!sink) {
        await store.putDoc(ALERT_COLLECTIONS.deliveries, delivery.deliveryId, { ...afterAttempt(delivery, null, delivery.attempts, `sink "${sinkName}" is no longer configured`, at) });
        continue;
      }
      // A due delivery further back that is waiting out its backoff holds the ones behind it.
      if (Date.parse(delivery.nextAttemptAt) > at.getTime()) return;
      const attempt = delivery.attempts + 1;
      const claimId = `${delivery.deliveryId}#${attempt}`;
      if (!(await store.insertDoc(ALERT_COLLECTIONS.attempts, claimId, { claimedAt: at.toISOString(), ownerId }))) {
        const claim = await store.getDoc(ALERT_COLLECTIONS.attempts, claimId);
        const claimedAt = typeof claim?.claimedAt === 'string' ? Date.parse(claim.claimedAt) : at.getTime();
        if (at.getTime() - claimedAt > sink.timeoutMs + ABANDONED_AFTER_MS) {
          await store.putDoc(ALERT_COLLECTIONS.deliveries, delivery.deliveryId, { ...afterAttempt(delivery, sink.retry, attempt, 'attempt abandoned: its instance stopped before recording an outcome', at) });
        }
        return;
      }
      attempted += 1;
      const notice = noticeById.get(delivery.noticeId)!;
      const approval = await linksFor(sink, notice);
      const result = await sendToSink(sink, sinkRequest(sink, notice, delivery.deliveryId, at, approval), deps.network);
      const next = afterAttempt(delivery, sink.retry, attempt, result.ok ? null : result.error, now());
      await store.putDoc(ALERT_COLLECTIONS.deliveries, delivery.deliveryId, { ...next });
      if (next.status === 'dead') logger.warn({ deliveryId: next.deliveryId, sink: sinkName, attempts: attempt, error: next.lastError }, 'alert delivery dead-lettered');
      if (!result.ok) {
        logger.info({ deliveryId: next.deliveryId, sink: sinkName, attempt, error: next.lastError }, 'alert delivery failed; retried later');
        return;
      }
    }
  };
  await Promise.all([...queues].map(([sink, queue]) => drain(sink, queue)));
  return attempted;
}
