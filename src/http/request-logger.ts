import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

type ParentLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

/**
 * The per-request logger fastify hands to `request.log` and `reply.log`: a pino child bound to
 * the request id, made on the first call that would write something. A pino child is not free
 * (it serializes its bindings through the redaction paths) and most requests never log: at the
 * default `warn` level a request that succeeds writes nothing. A call below the level costs the
 * check pino itself makes. Once made, the child is the one fastify would have made, so every
 * line it writes is unchanged (`reqId` included).
 */
export class LazyRequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: ParentLogger,
    private readonly bindings: Bindings,
  ) {}

  private materialize(): FastifyBaseLogger {
    if (this.made === null) this.made = this.parent.child(this.bindings);
    return this.made;
  }

  private write(level: Level, args: unknown[]): void {
    if (this.made === null && !this.parent.isLevelEnabled(level)) return;
    (this.materialize()[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return this.made === null ? this.parent.level : this.made.level;
  }

  set level(level: string) {
    this.materialize().level = level;
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.materialize().child(bindings, options);
  }
}

/**
 * Fastify `childLoggerFactory`. A route with its own level or serializers gets its pino child at
 * once (the lazy check reads the parent's level); every other request gets a LazyRequestLogger.
 */
export function requestLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options);
  return new LazyRequestLogger(logger as ParentLogger, bindings);
}
