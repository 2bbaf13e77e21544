import { describe, expect, it } from 'vitest';
import { cronProblems, isTimeZone, latestFireTime, nextFireTimes } from '../../src/schedules/cron-expression.js';

const PATHS = { cron: '/body/cron', timezone: '/body/timezone' };
const NOW = new Date('2026-03-01T10:00:00.000Z');
const problems = (cron: string, timezone = 'UTC') => cronProblems({ cron, timezone }, PATHS, NOW);
const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

describe('cron expressions of a schedule', () => {
  it('accepts five fields (minute first) and six (seconds first)', () => {
    expect(problems('*/5 * * * *')).toEqual([]);
    expect(problems('*/2 * * * * *')).toEqual([]);
    expect(problems('0 30 2 * * MON-FRI')).toEqual([]);
  });

  it('refuses other field counts, naming the cron field', () => {
    for (const cron of ['* * * *', '* * * * * * *', '@daily', '']) {
      const found = problems(cron);
      expect(found, cron).toHaveLength(1);
      expect(found[0]).toMatchObject({ path: '/body/cron', message: expect.stringMatching(/five .* or six/) });
    }
  });

  it('refuses a bad field value with croner’s reason, and a pattern that never fires', () => {
    expect(problems('61 * * * *')).toEqual([{ path: '/body/cron', message: expect.stringContaining('Invalid value for minute: 61') }]);
    expect(problems('x * * * *')[0]).toMatchObject({ path: '/body/cron', message: expect.stringMatching(/not a valid cron expression/) });
    expect(problems('0 0 31 2 *')).toEqual([{ path: '/body/cron', message: 'never fires (no date matches it)' }]);
  });

  it('refuses an unknown time zone, naming the timezone field, and still checks the cron', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone(' UTC')).toBe(false);
    expect(problems('*/5 * * * *', 'Mars/Olympus')).toEqual([{ path: '/body/timezone', message: expect.stringContaining('not an IANA time zone') }]);
    expect(problems('61 * * * *', 'Mars/Olympus').map((p) => p.path)).toEqual(['/body/timezone', '/body/cron']);
  });

  it('lists the next fire times strictly after a time, seconds included', () => {
    const spec = { cron: '*/2 * * * * *', timezone: 'UTC' };
    expect(iso(nextFireTimes(spec, new Date('2026-03-01T10:00:00.000Z'), 5))).toEqual([
      '2026-03-01T10:00:02.000Z',
      '2026-03-01T10:00:04.000Z',
      '2026-03-01T10:00:06.000Z',
      '2026-03-01T10:00:08.000Z',
      '2026-03-01T10:00:10.000Z',
    ]);
  });

  it('reads the expression in its time zone, across a daylight-saving change', () => {
    // 02:00 every day in Berlin: 01:00Z in winter, 00:00Z in summer; 30 March 2025 has no 02:00.
    const berlin = { cron: '0 2 * * *', timezone: 'Europe/Berlin' };
    expect(iso(nextFireTimes(berlin, new Date('2025-03-28T12:00:00Z'), 4))).toEqual([
      '2025-03-29T01:00:00.000Z',
      '2025-03-30T01:00:00.000Z',
      '2025-03-31T00:00:00.000Z',
      '2025-04-01T00:00:00.000Z',
    ]);
    const utc = { cron: '0 2 * * *', timezone: 'UTC' };
    expect(iso(nextFireTimes(utc, new Date('2025-03-28T12:00:00Z'), 1))).toEqual(['2025-03-29T02:00:00.000Z']);
  });

  it('finds the latest fire time at or before a time (inclusive)', () => {
    const spec = { cron: '*/2 * * * * *', timezone: 'UTC' };
    expect(latestFireTime(spec, new Date('2026-03-01T10:00:02.000Z'))?.toISOString()).toBe('2026-03-01T10:00:02.000Z');
    expect(latestFireTime(spec, new Date('2026-03-01T10:00:03.999Z'))?.toISOString()).toBe('2026-03-01T10:00:02.000Z');
  });
});
