import type { AlertSinkConfig } from '../config/alerts.js';
import { signAlertDelivery } from '../incidents/alert-signature.js';
import type { AlertNotice } from './types.js';

/** The request a sink is sent for one notice: built here, sent by the guarded fetch. */
export interface SinkRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The webhook's JSON: the notice as it is, plus the delivery id a receiver dedupes on. */
function webhookRequest(sink: Extract<AlertSinkConfig, { kind: 'webhook' }>, notice: AlertNotice, deliveryId: string, now: Date): SinkRequest {
  const body = JSON.stringify({
    deliveryId,
    noticeId: notice.noticeId,
    status: notice.kind,
    ruleId: notice.ruleId,
    subject: notice.subject,
    severity: notice.severity,
    summary: notice.summary,
    labels: notice.labels,
    startsAt: notice.startsAt,
    endsAt: notice.endsAt,
    at: notice.at,
  });
  // Signed at send time: a retry carries a fresh timestamp, so a receiver's freshness window holds.
  const timestamp = String(Math.floor(now.getTime() / 1000));
  return {
    url: sink.url,
    headers: {
      'content-type': 'application/json',
      'x-orchestrator-timestamp': timestamp,
      'x-orchestrator-signature': signAlertDelivery(sink.secret, timestamp, body),
      'x-orchestrator-delivery': deliveryId,
    },
    body,
  };
}

/** Alertmanager's v2 push: one alert per notice, ended (endsAt) by its recovery. */
function alertmanagerRequest(sink: Extract<AlertSinkConfig, { kind: 'alertmanager' }>, notice: AlertNotice): SinkRequest {
  const alert = {
    labels: { alertname: notice.ruleId, subject: notice.subject, severity: notice.severity, service: 'orchestrator', ...notice.labels },
    annotations: { summary: notice.summary },
    startsAt: notice.startsAt,
    endsAt: notice.kind === 'resolved' ? notice.endsAt : notice.validUntil,
  };
  return {
    url: `${sink.url.replace(/\/+$/, '')}/api/v2/alerts`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([alert]),
  };
}

export function sinkRequest(sink: AlertSinkConfig, notice: AlertNotice, deliveryId: string, now: Date): SinkRequest {
  return sink.kind === 'webhook' ? webhookRequest(sink, notice, deliveryId, now) : alertmanagerRequest(sink, notice);
}
