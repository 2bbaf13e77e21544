import { describe, expect, it } from 'vitest';
import { totalsOfCases } from '../../src/worker-sdk/case-totals.js';

describe('totalsOfCases', () => {
  const cases = [
    { status: 'passed' as const, seconds: 0.1004 },
    { status: 'failed' as const, seconds: 0.2 },
    { status: 'error' as const, seconds: 0 },
    { status: 'skipped' as const, seconds: 0 },
  ];

  it('counts by status and sums the cases’ times to the millisecond', () => {
    expect(totalsOfCases(cases, null)).toEqual({ tests: 4, failures: 1, errors: 1, skipped: 1, seconds: 0.3 });
  });

  it('takes the time the report states over the sum of its cases', () => {
    expect(totalsOfCases(cases, 12.3456).seconds).toBe(12.346);
    expect(totalsOfCases([], null)).toEqual({ tests: 0, failures: 0, errors: 0, skipped: 0, seconds: 0 });
  });
});
