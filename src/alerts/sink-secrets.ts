import type { AlertsConfig } from '../config/alerts.js';

/** The signing secrets of the webhook sinks: redacted wherever the service's own secrets are. */
export function alertSinkSecrets(config: Pick<AlertsConfig, 'sinks'>): string[] {
  return Object.values(config.sinks).flatMap((sink) => (sink.kind === 'webhook' ? [sink.secret] : []));
}
