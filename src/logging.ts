import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Fields that may carry a bearer key, the webhook secret or a password, wherever they appear in a
 * log object (top level, or one or two levels down such as `req.headers.authorization` or
 * `entry.secret`). Their values are replaced, never printed.
 */
const SECRET_FIELDS = ['authorization', 'x-api-key', 'apiKey', 'apiKeys', 'key', 'secret', 'webhookSecret', 'password'];

/** Redaction path syntax: plain names are dotted, names with a dash need brackets. */
const accessor = (field: string) => (/^[A-Za-z_$][\w$]*$/.test(field) ? `.${field}` : `["${field}"]`);

export const REDACTED_PATHS = SECRET_FIELDS.flatMap((field) => {
  const step = accessor(field);
  return [step.startsWith('.') ? field : step, `*${step}`, `*.*${step}`];
});

export const REDACTION_CENSOR = '[redacted]';

/**
 * The service's JSON logger. Fastify derives a child per request from it, so every request log
 * line carries `reqId` (the same value as the X-Request-Id response header).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: REDACTED_PATHS, censor: REDACTION_CENSOR },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}
