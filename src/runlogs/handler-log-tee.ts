import { format } from 'node:util';
import type { Logger } from 'pino';
import { SECRET_FIELDS } from '../logging.js';
import type { AttemptLog } from './types.js';

/** The levels whose lines an attempt keeps; debug and trace go to the service's log only. */
const KEPT_LEVELS: ReadonlySet<string> = new Set(['info', 'warn', 'error', 'fatal']);
const SECRET_NAMES: ReadonlySet<string> = new Set(SECRET_FIELDS.map((name) => name.toLowerCase()));
/** Nested objects are shown as dotted fields this deep; deeper values as JSON. */
const MAX_DEPTH = 3;
/** Fields shown per line; the rest are counted. */
const MAX_FIELDS = 40;

function scalar(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value instanceof Error) return JSON.stringify(value.message);
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return '[unserializable]';
  }
}

/**
 * `key=value` pairs, nested objects as dotted keys: the form memory recall's redaction reads
 * (`token=...`, `entry.secret=...`), where a JSON object's quoted keys would hide the value
 * from it. Fields the service's own log censors (authorization, apiKey, secret, ...) are
 * censored here too.
 */
function renderFields(fields: Record<string, unknown>): string {
  const pairs: string[] = [];
  let omitted = 0;
  const visit = (value: unknown, path: string, depth: number) => {
    const name = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
    if (SECRET_NAMES.has(name)) return void pairs.push(`${path}=[redacted]`);
    const nested = typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Error) && depth < MAX_DEPTH;
    if (nested) {
      for (const [key, inner] of Object.entries(value as Record<string, unknown>)) visit(inner, `${path}.${key}`, depth + 1);
      return;
    }
    if (pairs.length >= MAX_FIELDS) omitted += 1;
    else pairs.push(`${path}=${scalar(value)}`);
  };
  for (const [key, value] of Object.entries(fields)) visit(value, key, 1);
  if (omitted > 0) pairs.push(`(+${omitted} fields)`);
  return pairs.join(' ');
}

/** One pino call (`(obj, msg, ...args)`, `(msg, ...args)` or `(err, msg?)`) as a line of text. */
export function formatLogCall(level: string, bindings: Record<string, unknown>, args: unknown[]): string {
  let fields: Record<string, unknown> = { ...bindings };
  let rest = args;
  const [first] = args;
  if (first instanceof Error) {
    fields.err = first;
    rest = args.slice(1);
  } else if (typeof first === 'object' && first !== null) {
    fields = { ...fields, ...(first as Record<string, unknown>) };
    rest = args.slice(1);
  }
  const err = fields.err instanceof Error ? fields.err : null;
  const message = rest.length > 0 ? format(...rest) : (err?.message ?? '');
  return [level, message, renderFields(fields)].filter((part) => part !== '').join(' ');
}

/**
 * The handler's logger: `logger` as it is, and every call at info and above also kept in the
 * attempt's log, whatever level the service's own log is at (so `isLevelEnabled('info')` is
 * true for the handler). Children the handler makes keep their lines too, with their bindings.
 */
export function teeHandlerLogger(logger: Logger, log: Pick<AttemptLog, 'write'>, bindings: Record<string, unknown> = {}): Logger {
  return new Proxy(logger, {
    get(target, member) {
      if (typeof member === 'string' && KEPT_LEVELS.has(member)) {
        const method = Reflect.get(target, member, target) as (...args: unknown[]) => void;
        return (...args: unknown[]) => {
          log.write('log', formatLogCall(member, bindings, args));
          method.apply(target, args);
        };
      }
      if (member === 'child') {
        return (childBindings: Record<string, unknown>, options?: object) =>
          teeHandlerLogger(target.child(childBindings, options), log, { ...bindings, ...childBindings });
      }
      if (member === 'isLevelEnabled') return (level: string) => KEPT_LEVELS.has(level) || target.isLevelEnabled(level);
      const value: unknown = Reflect.get(target, member, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
