import type { AlertSinkConfig } from '../config/alerts.js';
import { signAlertDelivery } from '../incidents/alert-signature.js';
import type { NoticeApprovalLinks } from './approval-links.js';
import { chatText } from './chat-text.js';
import type { AlertNotice } from './types.js';

/** The request a sink is sent for one notice: built here, sent by the guarded fetch. */
export interface SinkRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A JSON body posted signed with the sink's secret, with the delivery id a receiver dedupes on. */
function signedRequest(sink: { url: string; secret: string }, body: string, deliveryId: string, now: Date): SinkRequest {
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

/** The webhook's JSON: the notice as it is, plus the delivery id a receiver dedupes on. */
function webhookRequest(sink: Extract<AlertSinkConfig, { kind: 'webhook' }>, notice: AlertNotice, deliveryId: string, now: Date, approval?: NoticeApprovalLinks): SinkRequest {
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
    ...(approval ? { approval } : {}),
  });
  return signedRequest(sink, body, deliveryId, now);
}

/** The bridge's `/notify`: one chat line for the channel, signed with the bridge's secret. */
function chatRequest(sink: Extract<AlertSinkConfig, { kind: 'chat' }>, notice: AlertNotice, deliveryId: string, now: Date, approval?: NoticeApprovalLinks): SinkRequest {
  const body = JSON.stringify({ deliveryId, channel: sink.channel, text: chatText(notice, approval), status: notice.kind, ruleId: notice.ruleId, severity: notice.severity });
  return signedRequest(sink, body, deliveryId, now);
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

/** `approval`: the approval links of a firing approval notice (approval-links.ts), made for this attempt alone. */
export function sinkRequest(sink: AlertSinkConfig, notice: AlertNotice, deliveryId: string, now: Date, approval?: NoticeApprovalLinks): SinkRequest {
  switch (sink.kind) {
    case 'webhook':
      return webhookRequest(sink, notice, deliveryId, now, approval);
    case 'chat':
      return chatRequest(sink, notice, deliveryId, now, approval);
    case 'alertmanager':
      return alertmanagerRequest(sink, notice);
  }
}
