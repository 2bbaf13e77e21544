import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Fields that may carry a bearer key, the webhook secret or a password, wherever they appear in a
 * log object (top level, or one or two levels down such as `req.headers.authorization` or
 * `entry.secret`). Their values are replaced, never printed.
 */
export const SECRET_FIELDS = ['authorization', 'x-api-key', 'apiKey', 'apiKeys', 'key', 'secret', 'webhookSecret', 'tokenSigningSecret', 'password'];

/** Redaction path syntax: plain names are dotted, names with a dash need brackets. */
const accessor = (field: string) => (/^[A-Za-z_$][\w$]*$/.test(field) ? `.${field}` : `["${field}"]`);

export const REDACTED_PATHS = SECRET_FIELDS.flatMap((field) => {
  const step = accessor(field);
  return [step.startsWith('.') ? field : step, `*${step}`, `*.*${step}`];
});

export const REDACTION_CENSOR = '[redacted]';

/** `access_token=<token>` in a query string (an event stream's scoped token) with its value censored. */
export function censorQueryCredentials(url: string): string {
  return url.replace(/([?&]access_token=)[^&#]*/gi, `$1${REDACTION_CENSOR}`);
}

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
  headers?: Record<string, unknown>;
}

/**
 * Fastify's own `req` serializer (its fields unchanged), with the one credential a URL may carry
 * censored: fastify keeps an instance's serializers over its defaults, so this one is used.
 */
function serializeRequest(req: LoggedRequest) {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? censorQueryCredentials(req.url) : req.url,
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/**
 * How the logger writes the info lines about one request (fastify's `incoming request` and
 * `request completed`) or one run (any line with a `runId`).
 */
export interface PerItemLines {
  /** `debug` writes them at debug instead of info: the demo's terminal says one line per run itself. */
  level: 'info' | 'debug';
  /** Told the status of every request that completed, whether or not its line is written. */
  onRequestCompleted?: (statusCode: number) => void;
}

const INFO = 30;

type LineObject = { req?: unknown; res?: { statusCode?: unknown }; runId?: unknown };

/** The object of a log call that is about one request (it carries the request or the reply) or one run. */
function perItemObject(args: unknown[]): LineObject | null {
  const first = args[0];
  if (typeof first !== 'object' || first === null) return null;
  return 'req' in first || 'res' in first || 'runId' in first ? (first as LineObject) : null;
}

/** The pino hook that writes per-item info lines at the level asked for and reports each completed request. */
function perItemHook(options: PerItemLines) {
  return function logMethod(this: Logger, args: Parameters<Logger['info']>, method: Logger['info'], level: number): void {
    const line = level === INFO ? perItemObject(args) : null;
    if (line === null) return method.apply(this, args);
    if (line.res && typeof line.res.statusCode === 'number') options.onRequestCompleted?.(line.res.statusCode);
    if (options.level === 'info') return method.apply(this, args);
    if (this.isLevelEnabled('debug')) this.debug(...args);
  };
}

/**
 * The service's JSON logger. Fastify derives a child per request from it, so every request log
 * line carries `reqId` (the same value as the X-Request-Id response header). `perItem`
 * changes how the lines about one request or one run are written (absent: at info).
 */
export function createLogger(level: string, destination?: DestinationStream, perItem?: PerItemLines): Logger {
  const options = {
    level,
    redact: { paths: REDACTED_PATHS, censor: REDACTION_CENSOR },
    serializers: { req: serializeRequest },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    ...(perItem ? { hooks: { logMethod: perItemHook(perItem) } } : {}),
  };
  return destination ? pino(options, destination) : pino(options);
}

const LEVEL_METHODS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);
const skip = () => undefined;

/**
 * `parent.child(bindings)`, made on the first use that needs it: a call at a level the parent
 * writes, or any other member. A pino child is not free (its bindings go through the redaction
 * paths) and most task runs never log at the service's level (`warn` by default), so a run whose
 * handler only logs `info` costs a level check per call instead. Once made, the child is the one
 * `parent.child(bindings)` returns, so every line it writes is the same.
 */
export function lazyChild(parent: Logger, bindings: Record<string, unknown>): Logger {
  let made: Logger | null = null;
  const child = () => (made ??= parent.child(bindings));
  return new Proxy(parent, {
    get(_target, member) {
      if (made === null) {
        if (typeof member === 'string' && LEVEL_METHODS.has(member) && !parent.isLevelEnabled(member)) return skip;
        // The child has the parent's level until someone sets its own: asking needs no child.
        if (member === 'isLevelEnabled') return (level: string) => parent.isLevelEnabled(level);
        if (member === 'level') return parent.level;
      }
      const target = child();
      const value: unknown = Reflect.get(target, member, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    set(_target, member, value) {
      return Reflect.set(child(), member, value);
    },
  });
}
