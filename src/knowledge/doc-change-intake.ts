/**
 * What the repair loop does with the paths of a doc-change run: buffers them (under the buffer
 * lock, so concurrent doc-change runs in any process lose nothing), refreshes the knowledge
 * index, and asks for a repair decision once the threshold of pending paths is reached.
 */

import { conflict } from '../domain/errors.js';
import { DOC_CHANGE_THRESHOLD, type DocChangeBuffer } from './doc-change-buffer.js';
import type { LockedDocChanges } from './locked-doc-changes.js';
import type { ConsiderRepair, RepairDecision } from './repair-admission.js';

export type RecordChanges = (paths: string[]) => Promise<{ buffer: DocChangeBuffer; decision: RepairDecision }>;

export function docChangeIntake(deps: { changes: LockedDocChanges; refreshIndex: () => Promise<unknown>; considerRepair: ConsiderRepair }): RecordChanges {
  return async (paths) => {
    const buffer = await deps.changes.append(paths);
    if (!buffer) throw conflict('doc-change buffer lock not obtained; the paths stay unrecorded and the change can be replayed');
    await deps.refreshIndex();
    const decision =
      buffer.pending.length >= DOC_CHANGE_THRESHOLD ? await deps.considerRepair() : ({ decision: 'below-threshold', pending: buffer.pending.length } as const);
    return { buffer, decision };
  };
}
