import { describe, expect, it } from 'vitest';
import { MemoryModel } from '../../src/store/file/memory-model.js';
import { makeRun } from '../support/runs.js';
import { candidateReads, pickFairly } from '../../src/store/fair-claims.js';

/** What the file store's commit hands the model for a run line: the parsed record and its text. */
function runLine(model: MemoryModel, overrides: Parameters<typeof makeRun>[0]) {
  const record = makeRun({ seq: model.lastSeq + 1, ...overrides });
  const text = JSON.stringify(record);
  return { entry: { seq: model.lastSeq + 1, op: 'run' as const, record: JSON.parse(text) as typeof record }, text };
}

describe('MemoryModel run texts (what a compaction writes instead of serializing again)', () => {
  it('captures the text of the latest write of each run, index for index with the captured runs', () => {
    const model = new MemoryModel(null);
    const first = runLine(model, { runId: 'a', taskId: 'a' });
    model.apply(first.entry, first.text);
    const other = runLine(model, { runId: 'b', taskId: 'b' });
    model.apply(other.entry, other.text);
    const rewritten = runLine(model, { runId: 'a', taskId: 'a', seq: 1, status: 'running', queueState: null });
    model.apply(rewritten.entry, rewritten.text);

    const { document, runTexts } = model.toSnapshot();
    expect(document.runs.map((run) => run.runId)).toEqual(['a', 'b']);
    expect(runTexts).toEqual([rewritten.text, other.text]);
    runTexts.forEach((text, i) => expect(text).toBe(JSON.stringify(document.runs[i])));
  });

  it('has no text for a run applied without one (replay) or deleted, so the writer serializes it', () => {
    const model = new MemoryModel(null);
    const written = runLine(model, { runId: 'a', taskId: 'a' });
    model.apply(written.entry, written.text);
    const replayed = runLine(model, { runId: 'a', taskId: 'a', seq: 1, status: 'running', queueState: null });
    model.apply(replayed.entry);
    expect(model.toSnapshot().runTexts).toEqual([undefined]);

    const again = runLine(model, { runId: 'b', taskId: 'b' });
    model.apply(again.entry, again.text);
    model.apply({ seq: model.lastSeq + 1, op: 'run-delete', runId: 'b' });
    const readmitted = runLine(model, { runId: 'b', taskId: 'b' });
    model.apply(readmitted.entry);
    expect(model.toSnapshot().runTexts).toEqual([undefined, undefined]);
  });

  it('starts from a snapshot with no texts', () => {
    const model = new MemoryModel(null);
    const written = runLine(model, { runId: 'a', taskId: 'a' });
    model.apply(written.entry, written.text);
    const reloaded = new MemoryModel(model.toSnapshot().document);
    expect(reloaded.toSnapshot().runTexts).toEqual([undefined]);
    expect(reloaded.toSnapshot().document.runs).toEqual(model.toSnapshot().document.runs);
  });
});

describe('MemoryModel runs waiting for a not-before time', () => {
  const T0 = Date.parse('2026-03-01T12:00:00.000Z');
  const at = (ms: number) => new Date(T0 + ms).toISOString();

  function waitingModel() {
    const model = new MemoryModel(null);
    const apply = (overrides: Parameters<typeof makeRun>[0]) => {
      const line = runLine(model, overrides);
      model.apply(line.entry, line.text);
    };
    // 500 trailing debounces whose windows end after T0 + 60 s.
    for (let i = 0; i < 500; i++) apply({ runId: `later-${i}`, taskId: `later-${i}`, createdAt: at(0), notBefore: at(60_000 + i), concurrencyKey: `k-${i % 3}` });
    // Due at T0 + 10 s, admitted in this order, over two keys and two priorities.
    apply({ runId: 'a-1', taskId: 'a-1', createdAt: at(0), notBefore: at(10_000), concurrencyKey: 'a' });
    apply({ runId: 'a-2', taskId: 'a-2', createdAt: at(0), notBefore: at(5_000), concurrencyKey: 'a' });
    apply({ runId: 'b-1', taskId: 'b-1', createdAt: at(0), notBefore: at(10_000), concurrencyKey: 'b' });
    apply({ runId: 'b-hi', taskId: 'b-hi', createdAt: at(0), notBefore: at(9_000), concurrencyKey: 'b', priority: 5 });
    return { model, apply };
  }

  it('reads only the due ones, and the claim order among them is the fair order', () => {
    const { model } = waitingModel();
    const before = candidateReads.rows;
    const candidates = model.readyCandidates(new Set(), 10, T0 + 10_000);
    expect(candidateReads.rows - before).toBe(4);
    const order = pickFairly(candidates, new Map(), T0 + 10_000, 10).map((c) => c.runId);
    // Priority first, then keys taking turns (a was never claimed, nor b), oldest admission within a key.
    expect(order).toEqual(['b-hi', 'a-1', 'b-1', 'a-2']);
    expect(model.readyCandidates(new Set(), 10, T0 + 4_999)).toEqual([]);
    expect(model.readyCandidates(new Set(), 10, T0 + 60_001).map((c) => c.runId)).toHaveLength(6);
  });

  it('leaves the index as its runs are claimed, re-timed or replaced by a time that does not parse', () => {
    const { model, apply } = waitingModel();
    const line = runLine(model, { runId: 'a-1', taskId: 'a-1', seq: 501, status: 'running', queueState: null, createdAt: at(0), notBefore: at(10_000), concurrencyKey: 'a' });
    model.apply(line.entry, line.text);
    apply({ runId: 'b-1', taskId: 'b-1', seq: 503, createdAt: at(0), notBefore: at(70_000), concurrencyKey: 'b' });
    apply({ runId: 'a-2', taskId: 'a-2', seq: 502, createdAt: at(0), notBefore: 'not a time', concurrencyKey: 'a' });
    expect(model.readyCandidates(new Set(), 10, T0 + 10_000).map((c) => c.runId)).toEqual(['b-hi']);
    expect(model.readyCandidates(new Set(['doc-sync']), 10, T0 + 10_000)).toEqual([]);
    expect(model.readyCandidates(new Set(), 1000, T0 + 3_600_000).map((c) => c.runId)).not.toContain('a-2');
  });
});
