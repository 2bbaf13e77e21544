import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { createLogger } from '../../src/logging.js';

/** A service logger at `level` whose lines are kept parsed, with a count of the pino children made from it. */
export function capturedLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger(
    level,
    new Writable({
      write(chunk, _e, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  // Counts children made from any logger of this tree (a pino child inherits the method).
  let children = 0;
  const child = logger.child;
  logger.child = function (this: typeof logger, ...args: Parameters<typeof child>) {
    children++;
    return child.apply(this, args);
  } as typeof logger.child;
  return { logger, lines, children: () => children };
}

/** A plain pino logger at `debug` writing JSON lines into an array the test can inspect. */
export function captureLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}
