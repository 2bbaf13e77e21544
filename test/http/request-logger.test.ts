import { describe, expect, it } from 'vitest';
import { capturedLogger } from '../support/captured-logger.js';
import type { FastifyBaseLogger } from 'fastify';
import { LazyRequestLogger, requestLoggerFactory } from '../../src/http/request-logger.js';

describe('LazyRequestLogger', () => {
  it('makes no pino child while every call is below the level', () => {
    const { logger, lines, children } = capturedLogger('warn');
    const log = new LazyRequestLogger(logger, { reqId: 'r-1' });
    log.info({ req: 'x' }, 'incoming request');
    log.debug('detail');
    log.trace('more detail');
    expect(children()).toBe(0);
    expect(lines).toEqual([]);
    expect(log.level).toBe('warn');
  });

  it('makes the child once, on the first enabled call, and writes through it with the bindings', () => {
    const { logger, lines, children } = capturedLogger('warn');
    const log = new LazyRequestLogger(logger, { reqId: 'r-2' });
    log.info('skipped');
    log.warn({ cause: 'a' }, 'first');
    log.error('second');
    expect(children()).toBe(1);
    expect(lines.map((l) => [l.level, l.reqId, l.msg])).toEqual([
      ['warn', 'r-2', 'first'],
      ['error', 'r-2', 'second'],
    ]);
    expect(lines[0]!.cause).toBe('a');
  });

  it('writes what an eager child would, redaction included', () => {
    const eager = capturedLogger('info');
    const lazy = capturedLogger('info');
    const entry = { req: { headers: { authorization: 'Bearer secret-value' } }, n: 1 };
    eager.logger.child({ reqId: 'r-3' }).info(entry, 'same line');
    new LazyRequestLogger(lazy.logger, { reqId: 'r-3' }).info(entry, 'same line');
    const strip = (l: Record<string, unknown>) => ({ ...l, time: undefined });
    expect(lazy.lines.map(strip)).toEqual(eager.lines.map(strip));
    expect(JSON.stringify(lazy.lines)).not.toContain('secret-value');
  });

  it('passes child() and a level change through to the real child', () => {
    const { logger, lines } = capturedLogger('warn');
    const log = new LazyRequestLogger(logger, { reqId: 'r-4' });
    log.level = 'info';
    log.info('now enabled');
    log.child({ part: 'x' }).warn('grandchild');
    expect(lines.map((l) => [l.reqId, l.part, l.msg])).toEqual([
      ['r-4', undefined, 'now enabled'],
      ['r-4', 'x', 'grandchild'],
    ]);
  });
});

describe('requestLoggerFactory', () => {
  it('is lazy by default and eager when the route sets its own level', () => {
    const { logger, children } = capturedLogger('warn');
    const lazy = requestLoggerFactory(logger as FastifyBaseLogger, { reqId: 'a' }, {});
    expect(lazy).toBeInstanceOf(LazyRequestLogger);
    expect(children()).toBe(0);
    const eager = requestLoggerFactory(logger as FastifyBaseLogger, { reqId: 'b' }, { level: 'debug' });
    expect(eager).not.toBeInstanceOf(LazyRequestLogger);
    expect(children()).toBe(1);
  });
});
