import { describe, expect, it } from 'vitest';
import { readVerifierResult } from '../../src/incidents/verification.js';

describe("a verifier's own reading", () => {
  it('is clear only for a clear posture or a passed verdict, wherever the lane puts it', () => {
    expect(readVerifierResult({ success: true, posture: 'healthy' })).toEqual({ clear: true, seen: 'posture healthy' });
    expect(readVerifierResult({ success: true, posture: 'critical' })).toEqual({ clear: false, seen: 'posture critical' });
    expect(readVerifierResult({ success: true, posture: 'degraded' })).toEqual({ clear: false, seen: 'posture degraded' });
    expect(readVerifierResult({ success: true, verdict: 'failed' })).toEqual({ clear: false, seen: 'verdict failed' });
    expect(readVerifierResult({ success: true, verdict: 'passed' })).toEqual({ clear: true, seen: 'verdict passed' });
    // An in-process handler's TaskResult carries the lane's result one level down.
    expect(readVerifierResult({ status: 'completed', result: { posture: 'blocked' } })).toEqual({ clear: false, seen: 'posture blocked' });
    expect(readVerifierResult({ status: 'completed', result: { filesIndexed: 3 } })).toEqual({ clear: true, seen: 'no posture reported' });
    expect(readVerifierResult(null)).toEqual({ clear: true, seen: 'no posture reported' });
  });
});
