import { describe, expect, it } from 'vitest';
import { MemoryModel } from '../../src/store/file/memory-model.js';
import { makeRun } from '../support/runs.js';

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
