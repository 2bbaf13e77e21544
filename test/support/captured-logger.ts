import { Writable } from 'node:stream';
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
