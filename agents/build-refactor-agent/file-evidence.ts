import { createHash } from 'node:crypto';
import type { FileAction, PlannedFile } from './plan-changes.js';

/** What one file change did, in bytes and hashes an operator can check against the disk. */
export interface FileChange {
  path: string;
  action: FileAction;
  bytesBefore: number | null;
  bytesAfter: number | null;
  sha256Before: string | null;
  sha256After: string | null;
}

function sha256(content: Buffer | null): string | null {
  return content === null ? null : createHash('sha256').update(content).digest('hex');
}

export function fileChangeOf(file: PlannedFile): FileChange {
  return {
    path: file.relative,
    action: file.action,
    bytesBefore: file.before?.length ?? null,
    bytesAfter: file.after?.length ?? null,
    sha256Before: sha256(file.before),
    sha256After: sha256(file.after),
  };
}

/** "2 edited, 1 created" */
export function describeActions(changes: FileChange[]): string {
  const counts = new Map<FileAction, number>();
  for (const change of changes) counts.set(change.action, (counts.get(change.action) ?? 0) + 1);
  return [...counts].map(([action, count]) => `${count} ${action}`).join(', ');
}
