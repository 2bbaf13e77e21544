import { describe, expect, it } from 'vitest';
import { silentAttemptsNote } from '../../console/src/runs/log-attempts.js';

const line = (attemptId: string) => ({ runId: 'r', attemptId, at: '2026-03-01T10:00:00.000Z', stream: 'stderr' as const, line: 'x' });
const attempt = (attemptId: string, lines = 0, truncated = 0) => ({ attemptId, lines: Array.from({ length: lines }, () => ({ at: '2026-03-01T10:00:00.000Z', stream: 'stderr' as const, line: 'x' })), truncated });

describe('the run logs view: attempts that printed nothing', () => {
  it('names the attempts that ran and printed nothing, kept or live', () => {
    expect(silentAttemptsNote({ runId: 'r', attempts: [attempt('r#1'), attempt('r#2', 2)] }, [])).toBe('Attempt #1 ran and has printed nothing.');
    expect(silentAttemptsNote({ runId: 'r', attempts: [attempt('r#1'), attempt('r#2'), attempt('r#3')] }, [line('r#3')])).toBe(
      'Attempts #1 and #2 ran and have printed nothing.',
    );
  });

  it('says nothing when every attempt printed, or none ran', () => {
    expect(silentAttemptsNote({ runId: 'r', attempts: [attempt('r#1', 1), attempt('r#2', 0, 4)] }, [])).toBeNull();
    expect(silentAttemptsNote({ runId: 'r', attempts: [] }, [])).toBeNull();
  });
});
