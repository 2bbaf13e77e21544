import { describe, expect, it } from 'vitest';
import { MinuteTally, RunEndWatcher, runLine } from '../../src/demo/run-lines.js';

const event = (runId: string, status: string, at: string, type = 'security-audit') => ({ runId, type, status, at: `2026-11-29T13:${at}Z` });

describe('the demo terminal lines', () => {
  it('gives one end per run from all of its events, with the time from the first event seen', () => {
    const watcher = new RunEndWatcher();
    const ends = [
      event('run-a', 'pending', '00:00.000'),
      event('run-a', 'running', '00:00.200'),
      event('run-b', 'pending', '00:01.000', 'doc-sync'),
      event('run-a', 'success', '00:01.400'),
      // Events recorded after the end (an approval closed, a proof link) end nothing again.
      event('run-a', 'success', '00:02.000'),
      event('run-b', 'failed', '01:05.000', 'doc-sync'),
      // Admitted again after it failed: a new end when it ends again.
      event('run-b', 'pending', '02:00.000', 'doc-sync'),
      event('run-b', 'success', '02:00.500', 'doc-sync'),
      // Seen only at its end: no duration.
      event('run-c', 'cancelled', '03:00.000'),
    ]
      .map((e) => watcher.observe(e))
      .filter((e) => e !== null);

    expect(ends.map(runLine)).toEqual([
      '13:00:01Z  success    security-audit         run-a  1.4 s',
      '13:01:05Z  failed     doc-sync               run-b  1 min 4 s',
      '13:02:00Z  success    doc-sync               run-b  500 ms',
      '13:03:00Z  cancelled  security-audit         run-c',
    ]);
  });

  it('summarizes a busy minute by status, and says nothing of a quiet one', () => {
    const tally = new MinuteTally();
    const at = new Date('2026-11-29T13:05:00Z');
    expect(tally.take(at)).toBeNull();
    for (const status of [200, 202, 202, 401, 404, 500]) tally.request(status);
    tally.runEnded('success');
    tally.runEnded('success');
    tally.runEnded('failed');
    expect(tally.take(at)).toBe('13:05:00Z  last minute: 6 requests (3 2xx, 2 4xx, 1 5xx); 3 runs ended (1 failed, 2 success)');
    expect(tally.take(at)).toBeNull();
    tally.request(200);
    expect(tally.take(at)).toBe('13:05:00Z  last minute: 1 request (1 2xx); 0 runs ended');
  });
});
