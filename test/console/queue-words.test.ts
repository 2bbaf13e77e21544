import { describe, expect, it } from 'vitest';
import { formatAbsolute } from '../../console/src/lib/time.js';
import { bucketCapWords, bucketIsFull, bucketMatchWords, heldByWords, keyWords, oldestWaitWords, pendingNotBefore, priorityColumns, priorityWords, queueSummaryWords, waitingAt } from '../../console/src/lib/queue-words.js';

describe('the queue page in words', () => {
  it('says what a bucket matches, from its types and key prefix', () => {
    expect(bucketMatchWords({ types: ['deploy'], keyPrefix: 'env/' })).toBe('runs of type deploy with a key starting “env/”');
    expect(bucketMatchWords({ types: ['deploy', 'audit'] })).toBe('runs of type deploy or audit');
    expect(bucketMatchWords({ keyPrefix: 'tenant/' })).toBe('runs with a key starting “tenant/”');
    expect(bucketMatchWords({})).toBe('every run');
    expect(bucketMatchWords({ types: [] })).toBe('every run');
  });

  it('lists every cap a bucket has, and only those', () => {
    expect(bucketCapWords({ concurrency: 4, perKey: null, rate: { max: 100, windowSeconds: 60 } })).toEqual(['4 running at once', '100 starts per 1 min']);
    expect(bucketCapWords({ concurrency: null, perKey: 1, rate: null })).toEqual(['1 running per key']);
    expect(bucketCapWords({ concurrency: null, perKey: null, rate: { max: 1, windowSeconds: 86_400 } })).toEqual(['1 start per 1 d']);
  });

  it('calls a bucket full only when its overall cap is reached', () => {
    expect(bucketIsFull({ concurrency: 2, running: 2 })).toBe(true);
    expect(bucketIsFull({ concurrency: 2, running: 1 })).toBe(false);
    expect(bucketIsFull({ concurrency: null, running: 50 })).toBe(false);
  });

  it('names the unkeyed queue and reads waits as durations', () => {
    expect(keyWords(null)).toBe('Unkeyed runs');
    expect(keyWords('env/prod')).toBe('env/prod');
    expect(oldestWaitWords(null)).toBe('nothing waiting');
    expect(oldestWaitWords(41.2)).toBe('41 s');
    expect(oldestWaitWords(190.5)).toBe('3 min 10 s');
    expect(oldestWaitWords(0.25)).toBe('250 ms');
  });

  it('sums the queue up in one line', () => {
    expect(queueSummaryWords({ running: 3, waiting: 120, keys: [{ key: null, running: 3, waiting: 120, oldestWaitSeconds: 1, byPriority: [] }] })).toBe('3 running, 120 waiting across 1 key');
    expect(queueSummaryWords({ running: 0, waiting: 0, keys: [] })).toBe('0 running, 0 waiting across 0 keys');
  });
  it('says what holds a waiting run: a limit bucket, a type\'s limit, or nothing', () => {
    expect(heldByWords('deploys')).toBe('held by limit deploys');
    expect(heldByWords('type:build-refactor')).toBe("held by the build-refactor type's limit");
    expect(heldByWords(null)).toBeNull();
    expect(heldByWords(undefined)).toBeNull();
    // A trailing debounce's run: its window's end in the reader's local time, not the ISO text.
    const end = '2026-11-29T23:45:00.000Z';
    expect(heldByWords(`not-before:${end}`)).toBe(`runs not before ${formatAbsolute(end)}`);
    expect(heldByWords(`not-before:${end}`)).not.toContain('limit');
  });
  it('shows a not-before time only while a ready run still waits for it', () => {
    const notBefore = '2026-11-29T23:45:00.000Z';
    const at = Date.parse(notBefore);
    const waiting = { status: 'pending', queueState: 'ready', notBefore };
    expect(pendingNotBefore(waiting, at - 30_000)).toBe(notBefore);
    expect(pendingNotBefore(waiting, at)).toBeNull();
    expect(pendingNotBefore({ ...waiting, status: 'running', queueState: null }, at - 30_000)).toBeNull();
    expect(pendingNotBefore({ ...waiting, queueState: 'held' }, at - 30_000)).toBeNull();
    expect(pendingNotBefore({ ...waiting, notBefore: null }, at - 30_000)).toBeNull();
    expect(pendingNotBefore({ ...waiting, notBefore: 'soon' }, at - 30_000)).toBeNull();
  });
  it('names priorities and lays out one column per priority with waiting runs, the highest first', () => {
    expect([5, 4, 3, 2, 1].map(priorityWords)).toEqual(['Priority 5 (highest)', 'Priority 4', 'Priority 3 (default)', 'Priority 2', 'Priority 1 (lowest)']);
    expect(priorityColumns([{ priority: 3 }, { priority: 1 }], [{ priority: 5 }, { priority: 3 }], [])).toEqual([5, 3, 1]);
    const key = { byPriority: [{ priority: 5, waiting: 2, oldestWaitSeconds: 4 }] };
    expect(waitingAt(key, 5)).toBe(2);
    expect(waitingAt(key, 3)).toBe(0);
  });
});
