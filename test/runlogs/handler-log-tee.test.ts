import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createRunLogBook } from '../../src/runlogs/run-log-book.js';
import { formatLogCall } from '../../src/runlogs/handler-log-tee.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { getCatalogEntry } from '../../src/runtime/catalog.js';
import { executeRun, type ExecutorDeps } from '../../src/runtime/executor.js';
import { bindHandler, type TaskHandler } from '../../src/runtime/handler-types.js';
import { capturedLogger } from '../support/captured-logger.js';
import { tempDir } from '../support/config.js';
import { testLaneRegistry } from '../support/lanes.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

describe("an in-process handler's log lines in its attempt's log", () => {
  let store: StateStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  async function runHandler(handler: TaskHandler<object>, serviceLevel = 'warn') {
    store = openStateStore(join(tempDir(), 'state.json'));
    await store.open();
    const service = capturedLogger(serviceLevel);
    const runLogs = createRunLogBook({ store, clock: systemClock, logger: service.logger, secrets: ['service-key-123456'] });
    const deps: ExecutorDeps = {
      store,
      clock: systemClock,
      logger: service.logger,
      lanes: testLaneRegistry([{ type: 'doc-sync', handler: bindHandler(handler, {}) }]),
      spawner: { run: async () => Promise.reject(new Error('no workers here')) },
      ownerId: 'tee-test',
      runLogs,
    };
    const run = makeRun({ runId: 'h1', type: 'doc-sync' });
    const stored = (await store.mutateRun('h1', insertIfAbsent(run))).after!;
    const outcome = await executeRun(deps, getCatalogEntry('doc-sync')!, stored, new AbortController().signal);
    // Read straight from the store: the attempt's log was written before the outcome came back.
    const fromStore = await store.getDoc('runLogs', 'h1#1');
    return { outcome, logs: await runLogs.read('h1'), fromStore, serviceLines: service.lines };
  }

  it('keeps info and above, whatever the service log level, and drops debug', async () => {
    const { outcome, logs, fromStore, serviceLines } = await runHandler(async (_state, _context, input) => {
      input.logger.debug('debug detail');
      input.logger.info({ items: 3 }, 'fetched %s feeds', 'two');
      expect(input.logger.isLevelEnabled('info')).toBe(true);
      input.logger.child({ feed: 'news' }).warn('feed slow');
      input.logger.error(new Error('feed broke'));
      return { status: 'completed', result: {} };
    });
    expect(outcome.ok).toBe(true);
    const lines = logs!.attempts[0]!.lines;
    expect(lines.map((l) => l.stream)).toEqual(['log', 'log', 'log']);
    expect(lines.map((l) => l.line)).toEqual(['info fetched two feeds items=3', 'warn feed slow feed=news', 'error feed broke err="feed broke"']);
    expect(fromStore!.lines).toEqual(lines);
    // The service's own log is unchanged: at warn it has the warn and error lines, not info or debug.
    const messages = serviceLines.filter((l) => l.runId === 'h1').map((l) => l.msg);
    expect(messages).toEqual(['feed slow', 'feed broke']);
  });

  it('keeps debug out also when the service logs at debug', async () => {
    const { logs, serviceLines } = await runHandler(async (_state, _context, input) => {
      input.logger.debug('only for the service');
      input.logger.info('kept');
      return { status: 'completed', result: {} };
    }, 'debug');
    expect(logs!.attempts[0]!.lines.map((l) => l.line)).toEqual(['info kept']);
    expect(serviceLines.some((l) => l.msg === 'only for the service')).toBe(true);
  });

  it('redacts secret fields and the service keys from handler lines', async () => {
    const { logs } = await runHandler(async (_state, _context, input) => {
      input.logger.info({ headers: { authorization: 'Basic dXNlcjpwYXNz' }, note: 'uses service-key-123456' }, 'called upstream');
      return { status: 'completed', result: {} };
    });
    const [line] = logs!.attempts[0]!.lines;
    expect(line!.line).toBe('info called upstream headers.authorization=[redacted] note="uses [redacted:secret]"');
  });

  it('keeps the lines of a handler that throws', async () => {
    const { outcome, logs } = await runHandler(async (_state, _context, input) => {
      input.logger.info('about to fail');
      throw new Error('boom');
    });
    expect(outcome.ok).toBe(false);
    expect(logs!.attempts[0]!.lines.map((l) => l.line)).toEqual(['info about to fail']);
  });
});

describe('formatLogCall', () => {
  it('renders the pino call shapes as one line of text', () => {
    expect(formatLogCall('info', {}, ['plain'])).toBe('info plain');
    expect(formatLogCall('info', { job: 'a b' }, [{ n: 1, nested: { deep: { deeper: { x: 1 } } } }, 'msg'])).toBe(
      'info msg job="a b" n=1 nested.deep.deeper={"x":1}',
    );
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(formatLogCall('warn', {}, [{ list: [circular] }, 'odd'])).toBe('warn odd list=[unserializable]');
  });
});
