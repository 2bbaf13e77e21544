import { useApiQuery } from '../api/hooks.js';
import { ScrollTable } from '../components/ScrollTable.js';
import { EmptyState, Loadable, Section } from '../components/states.js';
import { RelativeTime } from '../components/Time.js';
import type { QueueAnswer } from '../lib/api-types.js';
import {
  bucketCapWords,
  bucketIsFull,
  bucketMatchWords,
  keyWords,
  oldestWaitWords,
  priorityColumns,
  priorityWords,
  queueSummaryWords,
  waitingAt,
  type QueueBucket,
  type QueueKey,
  type QueuePriority,
} from '../lib/queue-words.js';

const PATH = '/api/queue';
/** The queue moves by the second; a few seconds keeps it current without loading the store (the answer is not cached). */
const REFRESH_MS = 5_000;
/**
 * Running, waiting, waiting by priority (one column per priority with waiting runs, the highest
 * first) and the oldest wait per concurrency key: one table shape for a bucket and for the whole queue.
 */
function KeyTable({ keys, label, caption = label }: { keys: readonly QueueKey[]; label: string; caption?: string }) {
  const priorities = priorityColumns(...keys.map((k) => k.byPriority));
  const columns = ['Concurrency key', 'Running', 'Waiting', ...priorities.map(priorityWords), 'Oldest wait'];
  return (
    <ScrollTable label={label} caption={caption} columns={columns} className="stack-on-phone key-table">
      {keys.map((k) => (
        <tr key={k.key ?? ''}>
          <td className="full">{k.key === null ? <span className="muted">{keyWords(k.key)}</span> : <strong className="wrap-anywhere">{keyWords(k.key)}</strong>}</td>
          <td className="num" data-label="Running">
            {k.running.toLocaleString()}
          </td>
          <td className="num" data-label="Waiting">
            {k.waiting.toLocaleString()}
          </td>
          {priorities.map((priority) => {
            const waiting = waitingAt(k, priority);
            return (
              <td key={priority} className="num" data-label={`${priorityWords(priority)}, waiting`}>
                {waiting === 0 ? <span className="muted">0</span> : waiting.toLocaleString()}
              </td>
            );
          })}
          <td className="num" data-label="Oldest wait">
            {k.oldestWaitSeconds === null ? <span className="muted">{oldestWaitWords(null)}</span> : oldestWaitWords(k.oldestWaitSeconds)}
          </td>
        </tr>
      ))}
    </ScrollTable>
  );
}

/** Waiting runs by priority, the highest first: how many and how long the oldest has waited. */
function PriorityList({ priorities, label }: { priorities: readonly QueuePriority[]; label: string }) {
  if (priorities.length === 0) return null;
  return (
    <ul className="priority-list" aria-label={label}>
      {priorities.map((p) => (
        <li key={p.priority}>
          <strong>{priorityWords(p.priority)}</strong>: {p.waiting.toLocaleString()} waiting, the oldest for {oldestWaitWords(p.oldestWaitSeconds)}
        </li>
      ))}
    </ul>
  );
}

function BucketCard({ bucket }: { bucket: QueueBucket }) {
  const full = bucketIsFull(bucket);
  return (
    <li className="card" aria-labelledby={`bucket-${bucket.name}`}>
      <div className="section-head">
        <h3 id={`bucket-${bucket.name}`}>{bucket.name}</h3>
        {full && <span className="badge badge-warning">full</span>}
      </div>
      <p>
        Matches {bucketMatchWords(bucket.match)}. Caps: {bucketCapWords(bucket).join(', ')}.
      </p>
      <p className="hint">
        {bucket.running.toLocaleString()} running, {bucket.waiting.toLocaleString()} waiting
      </p>
      <PriorityList priorities={bucket.priorities} label={`Waiting by priority in bucket ${bucket.name}`} />
      {bucket.keys.length === 0 ? (
        <EmptyState>No run of this bucket is running or waiting.</EmptyState>
      ) : (
        <KeyTable keys={bucket.keys} label={`Keys in bucket ${bucket.name}`} />
      )}
    </li>
  );
}

function QueueSummary({ answer }: { answer: QueueAnswer }) {
  return (
    <ul className="stats" aria-label="Queue totals">
      <li className="stat">
        <span className="stat-value">{answer.running.toLocaleString()}</span>
        <span className="stat-label">running</span>
      </li>
      <li className="stat">
        <span className="stat-value">{answer.waiting.toLocaleString()}</span>
        <span className="stat-label">waiting</span>
      </li>
      <li className="stat" title="Waiting runs no claim takes before their not-before time: trailing debounces whose window has not ended">
        {/* Absent from the answer of a service older than the count: none shown as 0. */}
        <span className="stat-value">{(answer.notBefore ?? 0).toLocaleString()}</span>
        <span className="stat-label">held by a not-before time</span>
      </li>
      <li className="stat">
        <span className="stat-value">{answer.keys.length.toLocaleString()}</span>
        <span className="stat-label">concurrency keys</span>
      </li>
      <li className="stat">
        <span className="stat-value">{answer.buckets.length.toLocaleString()}</span>
        <span className="stat-label">limit buckets</span>
      </li>
    </ul>
  );
}

/** The queue by limit bucket and concurrency key (`GET /api/queue`, docs/queue.md), refreshed every few seconds. */
export function QueuePage() {
  const queue = useApiQuery<QueueAnswer>(PATH, { refetchInterval: REFRESH_MS });
  return (
    <>
      <div className="page-head">
        <h1>Queue</h1>
      </div>
      <Loadable query={queue} label="the queue">
        {(answer) => (
          <>
            <p className="hint" aria-live="polite">
              As of <RelativeTime iso={answer.at} />, refreshed every {REFRESH_MS / 1000} s. Within a key, higher priority runs go first and waiting
              raises a run's priority one level a minute; the counts by priority are the priorities runs were triggered with.
            </p>
            <QueueSummary answer={answer} />
            <PriorityList priorities={answer.priorities} label="Waiting by priority" />
            <Section id="queue-buckets" title="Limit buckets">
              {answer.buckets.length === 0 ? (
                <EmptyState>
                  No limits configured: config <code>limits</code>, docs/queue.md.
                </EmptyState>
              ) : (
                <ul className="cards" aria-label="Limit buckets">
                  {answer.buckets.map((bucket) => (
                    <BucketCard key={bucket.name} bucket={bucket} />
                  ))}
                </ul>
              )}
            </Section>
            <Section id="queue-keys" title="Whole queue by key">
              {answer.keys.length === 0 ? (
                <EmptyState>Nothing is running or waiting. Trigger a task (the Tasks page); runs triggered with a concurrency key show here by key.</EmptyState>
              ) : (
                <KeyTable keys={answer.keys} label="Whole queue by concurrency key, longest waiting first" caption={`${queueSummaryWords(answer)}, the longest waiting first`} />
              )}
            </Section>
          </>
        )}
      </Loadable>
    </>
  );
}
