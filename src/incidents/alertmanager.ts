import Type, { type Static } from 'typebox';
import { Fingerprints } from './fingerprint.js';
import type { IncidentSeverity, IncidentSignal } from './types.js';

const StringMap = Type.Record(Type.String(), Type.String({ maxLength: 4000 }));

/** The Alertmanager webhook body (fields the ledger reads; others are accepted and ignored). */
export const AlertmanagerBody = Type.Object(
  {
    version: Type.Optional(Type.String({ maxLength: 20 })),
    status: Type.Optional(Type.Union([Type.Literal('firing'), Type.Literal('resolved')])),
    receiver: Type.Optional(Type.String({ maxLength: 500 })),
    groupLabels: Type.Optional(StringMap),
    commonLabels: Type.Optional(StringMap),
    commonAnnotations: Type.Optional(StringMap),
    alerts: Type.Array(
      Type.Object(
        {
          status: Type.Optional(Type.Union([Type.Literal('firing'), Type.Literal('resolved')])),
          labels: Type.Optional(StringMap),
          annotations: Type.Optional(StringMap),
          startsAt: Type.Optional(Type.String({ maxLength: 64 })),
          endsAt: Type.Optional(Type.String({ maxLength: 64 })),
          fingerprint: Type.Optional(Type.String({ maxLength: 200 })),
          generatorURL: Type.Optional(Type.String({ maxLength: 2000 })),
        },
        { additionalProperties: true },
      ),
      { minItems: 1, maxItems: 500 },
    ),
  },
  { additionalProperties: true },
);
export type AlertmanagerBody = Static<typeof AlertmanagerBody>;

const SEVERITY_LABELS: Record<string, IncidentSeverity> = {
  critical: 'critical',
  page: 'critical',
  error: 'critical',
  warning: 'warning',
  warn: 'warning',
  info: 'info',
  none: 'info',
};

const CLASSIFICATIONS = new Set(['runtime-mode', 'persistence', 'proof-delivery', 'repair', 'retry-recovery', 'knowledge', 'service-runtime', 'approval-backlog', 'alert']);

export type AlertChange = { kind: 'firing'; signal: IncidentSignal } | { kind: 'resolved'; fingerprint: string };

/**
 * Maps each alert of a delivery to a ledger change, keyed by the alert's fingerprint: firing
 * alerts open or update, resolved ones resolve. Severity comes from the `severity` label, the
 * classification from a known `classification` label (else `alert`), the owner from `owner`/`team`.
 */
export function alertChanges(body: AlertmanagerBody): AlertChange[] {
  return body.alerts.map((alert) => {
    const labels = { ...(body.commonLabels ?? {}), ...(alert.labels ?? {}) };
    const annotations = { ...(body.commonAnnotations ?? {}), ...(alert.annotations ?? {}) };
    const fingerprint = Fingerprints.alert(alert.fingerprint, labels);
    const status = alert.status ?? body.status ?? 'firing';
    if (status === 'resolved') return { kind: 'resolved', fingerprint };
    const name = labels.alertname ?? 'alert';
    const classification = labels.classification && CLASSIFICATIONS.has(labels.classification) ? labels.classification : 'alert';
    const steps = [annotations.runbook, annotations.runbook_url].filter((s): s is string => typeof s === 'string' && s !== '');
    return {
      kind: 'firing',
      signal: {
        fingerprint,
        source: 'alert',
        classification,
        severity: SEVERITY_LABELS[(labels.severity ?? '').toLowerCase()] ?? 'warning',
        title: (annotations.summary ?? name).slice(0, 300),
        summary: (annotations.description ?? annotations.summary ?? `${name} is firing${alert.startsAt ? ` since ${alert.startsAt}` : ''}`).slice(0, 2000),
        labels,
        ...(steps.length > 0 ? { recommendedSteps: steps } : {}),
      },
    };
  });
}
