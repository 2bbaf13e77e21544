import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { apiClient, waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { startService } from '../support/service-process.js';

/**
 * One log, one encoding: the readiness line, start-up, request and worker-failure lines and the
 * shutdown line all come from the service logger, so each has the label form of the level
 * (`"level":"info"`) and an ISO time, never pino's numeric level or epoch milliseconds.
 */
describe('log format', () => {
  it('writes every line of a service run as JSON with a string level and an ISO time', async () => {
    const service = await startService({ baseDir: tempDir() });
    let exitCode: number | null;
    try {
      const api = apiClient(service.url);
      await fetch(`${service.url}/health`, { headers: { 'x-request-id': 'log-format-health' } });
      expect((await api.get('/api/auth/me', 'not-a-configured-key')).status).toBe(401);
      // Whitespace passes the payload schema and is refused by the lane: the worker path logs an error.
      const trigger = await api.trigger('summarize-content', { content: '   ', idempotencyKey: 'log-format-refusal' });
      expect(trigger.status).toBe(202);
      expect((await waitForTerminal(api, 'log-format-refusal')).status).toBe('failed');
      await waitFor(async () => (service.output.some((l) => l.includes('"agent spawn error"')) ? true : undefined));
    } finally {
      exitCode = await service.kill('SIGTERM');
    }
    expect(exitCode).toBe(0);

    const lines = service.output.filter((line) => line.trim() !== '');
    const entries = lines.map((line) => {
      let entry: unknown;
      expect(() => (entry = JSON.parse(line)), `not a JSON line: ${line}`).not.toThrow();
      return entry as Record<string, unknown>;
    });
    for (const entry of entries) {
      expect(typeof entry.level, JSON.stringify(entry)).toBe('string');
      expect(['trace', 'debug', 'info', 'warn', 'error', 'fatal']).toContain(entry.level);
      expect(entry.time, JSON.stringify(entry)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }

    const messages = entries.map((entry) => entry.msg);
    expect(messages).toContain('service listening');
    expect(messages).toContain('agent spawn error');
    expect(messages).toContain('shutting down');
    expect(entries.some((entry) => entry.reqId === 'log-format-health')).toBe(true);
    expect(lines.join('\n')).not.toContain(TEST_KEYS.operator);
  });
});
