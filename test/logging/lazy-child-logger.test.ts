import { describe, expect, it } from 'vitest';
import { capturedLogger } from '../support/captured-logger.js';
import { lazyChild } from '../../src/logging.js';

describe('lazyChild (a task run handler logger)', () => {
  it('makes no pino child while every call is below the level', () => {
    const { logger, lines, children } = capturedLogger('warn');
    const log = lazyChild(logger, { runId: 'run-1', type: 'doc-sync' });
    log.info({ files: 3 }, 'indexed');
    log.debug('detail');
    expect(log.isLevelEnabled('info')).toBe(false);
    expect(log.isLevelEnabled('warn')).toBe(true);
    expect(log.level).toBe('warn');
    expect(children()).toBe(0);
    expect(lines).toEqual([]);
  });

  it('writes enabled lines through one child with the run bindings, redaction included', () => {
    const { logger, lines, children } = capturedLogger('warn');
    const log = lazyChild(logger, { runId: 'run-2', type: 'doc-sync' });
    log.info('skipped');
    log.warn({ secret: 's3cret' }, 'first');
    log.error('second');
    expect(children()).toBe(1);
    expect(lines.map((l) => [l.level, l.runId, l.type, l.msg])).toEqual([
      ['warn', 'run-2', 'doc-sync', 'first'],
      ['error', 'run-2', 'doc-sync', 'second'],
    ]);
    expect(lines[0]!.secret).toBe('[redacted]');
  });

  it('hands other members to the child: its own children carry both bindings', () => {
    const { logger, lines } = capturedLogger('info');
    const log = lazyChild(logger, { runId: 'run-3' });
    log.child({ component: 'knowledge' }).info('refreshed');
    expect(lines[0]).toMatchObject({ runId: 'run-3', component: 'knowledge', msg: 'refreshed' });
    expect(log.bindings()).toEqual({ runId: 'run-3' });
    // Once made, the child answers for itself: its own level is its own.
    log.level = 'error';
    expect(log.level).toBe('error');
    expect(log.isLevelEnabled('warn')).toBe(false);
    expect(logger.level).toBe('info');
  });
});
