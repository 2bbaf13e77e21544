import { describe, expect, it } from 'vitest';
import { humanize } from '../../console/src/lib/labels.js';
import { checkCron, describeCron } from '../../console/src/lib/cron.js';
import { offersAcknowledge, slaDueAt } from '../../console/src/lib/incidents.js';
import { formatDuration, formatRelative, isIsoInstant } from '../../console/src/lib/time.js';
import { formatAgo, formatDuration as formatRunDuration } from '../../console/src/runs/format.js';

describe('formatDuration', () => {
  it('reads in at most two units', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(4_249)).toBe('4.2 s');
    expect(formatDuration(42_000)).toBe('42 s');
    expect(formatDuration(190_000)).toBe('3 min 10 s');
    expect(formatDuration(2 * 3_600_000)).toBe('2 h');
    expect(formatDuration(2 * 86_400_000 + 4 * 3_600_000 + 60_000)).toBe('2 d 4 h');
    expect(formatDuration(null)).toBe('—');
  });
  it('never lets a part reach its unit\'s limit: no "1 min 60 s", "60 s", "1000 ms" or "10.0 s"', () => {
    expect(formatDuration(119_600)).toBe('1 min 59 s');
    expect(formatDuration(59_600)).toBe('59 s');
    expect(formatDuration(999.7)).toBe('999 ms');
    expect(formatDuration(9_999)).toBe('9.9 s');
    expect(formatDuration(3_599_999)).toBe('59 min 59 s');
    expect(formatDuration(86_399_999)).toBe('23 h 59 min');
    // Across the first two days, in steps that land on every part's edges: no part at its limit.
    const atLimit: string[] = [];
    for (let ms = 0; ms < 2 * 86_400_000; ms += 997) {
      const text = formatDuration(ms);
      if (/(^|\s)(60 (s|min)|24 h|1000 ms|10\.0 s)/.test(text)) atLimit.push(`${ms} ms: ${text}`);
    }
    expect(atLimit).toEqual([]);
  });
  it('is the same function on the run pages, and "ago" reads the same everywhere', () => {
    expect(formatRunDuration).toBe(formatDuration);
    const now = Date.parse('2026-03-01T12:00:00Z');
    expect(formatAgo(new Date(now - 119_600).toISOString(), now)).toBe('1 min 59 s ago');
    expect(formatRelative(new Date(now - 119_600).toISOString(), now)).toBe('1 min 59 s ago');
    expect(formatAgo(new Date(now - 59_700).toISOString(), now)).toBe('59 s ago');
  });
});

describe('formatRelative', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it('says how long ago or how long until, and "just now" within five seconds', () => {
    expect(formatRelative('2026-03-01T11:57:00Z', now)).toBe('3 min ago');
    expect(formatRelative('2026-03-01T14:05:00Z', now)).toBe('in 2 h 5 min');
    expect(formatRelative('2026-03-01T12:00:03Z', now)).toBe('just now');
    expect(formatRelative(null, now)).toBe('—');
  });
  it('recognizes the instants the service writes and nothing else', () => {
    expect(isIsoInstant('2026-03-01T12:00:00.000Z')).toBe(true);
    expect(isIsoInstant('2026-03-01')).toBe(false);
    expect(isIsoInstant('summarize-content')).toBe(false);
  });
});

describe('cron checked as typed', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  it('puts a valid expression in words with its zone and lists the next fire times', () => {
    const check = checkCron('0 2 * * *', 'UTC', now);
    expect(check.problems).toEqual([]);
    expect(check.words).toBe('At 02:00 (UTC)');
    expect(check.next.map((d) => d.toISOString())).toEqual(['2026-03-02T02:00:00.000Z', '2026-03-03T02:00:00.000Z', '2026-03-04T02:00:00.000Z']);
    expect(describeCron('*/10 * * * * *', 'Europe/Berlin')).toBe('Every 10 seconds (Europe/Berlin)');
  });
  it('names the field at fault, as the service would', () => {
    expect(checkCron('every day', 'UTC', now).problems).toEqual([{ field: 'cron', message: expect.stringContaining('has 2 fields') }]);
    expect(checkCron('0 2 30 2 *', 'UTC', now).problems).toEqual([{ field: 'cron', message: 'never fires (no date matches it)' }]);
    expect(checkCron('0 2 * * *', 'Mars/Olympus', now).problems.map((p) => p.field)).toEqual(['timezone']);
  });
});

describe('slaDueAt', () => {
  const policy = { targetSlaMinutes: 30 } as never;
  it('is the escalation due time when set, else opened + target minutes, none once resolved', () => {
    expect(slaDueAt({ status: 'active', openedAt: '2026-03-01T12:00:00.000Z', policy, escalation: { dueAt: null } as never })).toBe('2026-03-01T12:30:00.000Z');
    expect(slaDueAt({ status: 'watching', openedAt: '2026-03-01T12:00:00.000Z', policy, escalation: { dueAt: '2026-03-01T12:10:00.000Z' } as never })).toBe('2026-03-01T12:10:00.000Z');
    expect(slaDueAt({ status: 'resolved', openedAt: '2026-03-01T12:00:00.000Z', policy, escalation: { dueAt: null } as never })).toBeNull();
  });
});

describe('offersAcknowledge', () => {
  it('offers it on an open incident nobody acknowledged, never on a resolved one', () => {
    expect(offersAcknowledge({ status: 'active', acknowledged: false })).toBe(true);
    expect(offersAcknowledge({ status: 'watching', acknowledged: false })).toBe(true);
    expect(offersAcknowledge({ status: 'active', acknowledged: true })).toBe(false);
    expect(offersAcknowledge({ status: 'resolved', acknowledged: false })).toBe(false);
  });
});

describe('humanize', () => {
  it('puts keys in words', () => {
    expect(humanize('lastRefreshAt')).toBe('Last refresh at');
    expect(humanize('p95DurationMs')).toBe('P95 duration');
    expect(humanize('cycle_state')).toBe('Cycle state');
  });
});
