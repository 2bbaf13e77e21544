import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { DocChangeBatcher, startDocWatcher } from '../../src/knowledge/doc-watcher.js';
import type { AdmissionOutcome, AdmissionRequest } from '../../src/runtime/admission.js';
import { waitFor } from '../support/http.js';
import { tempDir } from '../support/config.js';

function recordingAdmit() {
  const requests: AdmissionRequest[] = [];
  const admit = async (request: AdmissionRequest) => {
    requests.push(request);
    return { kind: 'admitted', run: { runId: `run-${requests.length}` } } as unknown as AdmissionOutcome;
  };
  const paths = () => requests.flatMap((r) => r.payload.paths as string[]);
  return { requests, admit, paths };
}

describe('doc watcher', () => {
  it('turns a burst of 1,000 doc changes into a bounded number of doc-change tasks', async () => {
    const docsPath = tempDir('watch-');
    mkdirSync(join(docsPath, 'guides'));
    const { requests, admit, paths } = recordingAdmit();
    const watcher = startDocWatcher({ docsPath, admit, logger: pino({ level: 'silent' }), flushMs: 200, maxBatch: 500 });
    try {
      await watcher.ready;
      for (let i = 0; i < 1000; i += 1) writeFileSync(join(docsPath, 'guides', `doc-${i}.md`), `# Doc ${i}\n`);
      writeFileSync(join(docsPath, 'guides', 'image.png'), 'not a doc');
      mkdirSync(join(docsPath, '.hidden'));
      writeFileSync(join(docsPath, '.hidden', 'secret.md'), '# hidden');
      await waitFor(async () => (new Set(paths()).size === 1000 ? true : undefined), 20_000, '1,000 admitted paths');
      await watcher.flush();
      expect(requests.every((r) => r.type === 'doc-change' && r.source === 'system' && r.requestedBy === 'doc-watcher')).toBe(true);
      expect(requests.every((r) => (r.payload.paths as string[]).length <= 500)).toBe(true);
      // Bounded: batches of up to 500 per flush, not one task per change.
      expect(requests.length).toBeLessThanOrEqual(20);
      expect(paths()).not.toContain('guides/image.png');
      expect(paths().some((p) => p.includes('.hidden'))).toBe(false);
    } finally {
      await watcher.stop();
    }
  });

  it('batches, deduplicates and keeps paths whose admission failed', async () => {
    let fail = true;
    const requests: string[][] = [];
    const batcher = new DocChangeBatcher({
      flushMs: 60_000,
      maxBatch: 2,
      logger: pino({ level: 'silent' }),
      admit: async (request) => {
        if (fail) {
          fail = false;
          throw new Error('store unavailable');
        }
        requests.push(request.payload.paths as string[]);
        return {} as AdmissionOutcome;
      },
    });
    for (const p of ['b.md', 'a.md', 'b.md', 'c.md']) batcher.add(p);
    await batcher.flush();
    expect(requests).toEqual([]);
    await batcher.flush();
    // The failed batch went back behind c.md; each batch is sorted.
    expect(requests).toEqual([['a.md', 'c.md'], ['b.md']]);
    batcher.stop();
  });
});
