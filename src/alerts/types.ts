/**
 * The words of alerting (docs/alerts.md). A rule's condition is evaluated over stored state; a
 * condition holding for one subject (a task type, a run, an incident) is an episode; each
 * message an episode sends (its firing, a repeat once per dedupe window, its recovery) is a
 * notice; each notice goes to each of its rule's sinks as one delivery, retried until it is
 * delivered or dead-lettered.
 */
export type AlertSeverity = 'critical' | 'warning' | 'info';

/** A rule's condition holding for one subject right now. */
export interface ActiveCondition {
  ruleId: string;
  /** What the condition holds for: a task type, a run id, an incident id, `queue`. */
  subject: string;
  summary: string;
  /** Extra labels for the receivers (runId, type, incidentId ...). */
  labels: Record<string, string>;
}

/** The store's record of an open episode: created once, by whichever instance claims it first. */
export interface AlertEpisode {
  ruleId: string;
  subject: string;
  openedAt: string;
  summary: string;
  labels: Record<string, string>;
}

export type NoticeKind = 'firing' | 'resolved';

/** One message of an episode, claimed in the store by its deterministic id: sent once whatever the instance count. */
export interface AlertNotice {
  noticeId: string;
  ruleId: string;
  subject: string;
  kind: NoticeKind;
  severity: AlertSeverity;
  /** When this notice was made. */
  at: string;
  /** When the episode opened (Alertmanager's startsAt). */
  startsAt: string;
  /** When the condition cleared (resolved notices only; Alertmanager's endsAt). */
  endsAt: string | null;
  /** Firing notices: when receivers may consider it over unless a repeat arrives (Alertmanager's endsAt while firing). */
  validUntil: string | null;
  summary: string;
  labels: Record<string, string>;
  sinks: string[];
}

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

/** Where one notice stands with one sink; absent in the store means pending with no attempt yet. */
export interface AlertDelivery {
  deliveryId: string;
  noticeId: string;
  sink: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string;
  lastError: string | null;
  deliveredAt: string | null;
  updatedAt: string;
}

/** The store collections of alerting (keyed documents of StateStore). */
export const ALERT_COLLECTIONS = {
  episodes: 'alert-episodes',
  notices: 'alert-notices',
  deliveries: 'alert-deliveries',
  /** One document per delivery attempt: whoever inserts it sends that attempt. */
  attempts: 'alert-attempts',
} as const;
