import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, type PerItemLines } from '../../src/logging.js';

function logger(level: string, perItem: PerItemLines) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _e, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { log: createLogger(level, sink, perItem), lines };
}

describe('per-item log lines (the demo writes them at debug)', () => {
  it('writes the lines about one request or one run at debug, counts completed requests, and leaves every other line alone', () => {
    const statuses: number[] = [];
    const { log, lines } = logger('debug', { level: 'debug', onRequestCompleted: (s) => statuses.push(s) });
    const request = log.child({ reqId: 'req-1' });
    request.info({ req: { method: 'GET', url: '/health' } }, 'incoming request');
    request.info({ res: { statusCode: 200 }, responseTime: 1.5 }, 'request completed');
    log.info({ runId: 'r-1', agentId: 'security-agent' }, 'agent worker succeeded');
    log.info({ url: 'http://127.0.0.1:1' }, 'service listening');
    log.warn({ runId: 'r-2' }, 'lease lost: stopping the attempt');

    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['debug', 'incoming request'],
      ['debug', 'request completed'],
      ['debug', 'agent worker succeeded'],
      ['info', 'service listening'],
      ['warn', 'lease lost: stopping the attempt'],
    ]);
    expect(lines[0]!.reqId).toBe('req-1');
    expect(statuses).toEqual([200]);
  });

  it('at info, drops them from the output but still counts each completed request', () => {
    const statuses: number[] = [];
    const { log, lines } = logger('info', { level: 'debug', onRequestCompleted: (s) => statuses.push(s) });
    log.info({ res: { statusCode: 404 } }, 'request completed');
    log.info({ runId: 'r-1' }, 'agent worker succeeded');
    log.info('knowledge index ready');
    expect(lines.map((l) => [l.level, l.msg])).toEqual([['info', 'knowledge index ready']]);
    expect(statuses).toEqual([404]);
  });

  it('keeps them at info when asked to (the service outside the demo)', () => {
    const { log, lines } = logger('info', { level: 'info' });
    log.info({ res: { statusCode: 201 } }, 'request completed');
    expect(lines.map((l) => [l.level, l.msg])).toEqual([['info', 'request completed']]);
  });
});
