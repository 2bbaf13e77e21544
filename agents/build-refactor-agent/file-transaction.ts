import { posix } from 'node:path';
import {
  createWorkspaceFile,
  ensureWorkspaceFolder,
  readWorkspaceFile,
  removeWorkspaceFile,
  removeWorkspaceFolder,
  replaceWorkspaceFile,
  type WorkspaceWrite,
} from '../../src/worker-sdk/workspace-file.js';
import { MAX_FILE_BYTES, type PlannedFile } from './plan-changes.js';

/** A write the workspace opener refused or the file system failed, as the error the transaction rolls back on. */
class WriteRefused extends Error {
  override name = 'WriteRefused';
}

function done(write: WorkspaceWrite): void {
  if (!write.ok) throw new WriteRefused(write.message);
}

/** The bytes at `path` now, read through the workspace opener; null when there is no file. */
function currentBytes(workspaceRoot: string, path: string): Buffer | null {
  const read = readWorkspaceFile(workspaceRoot, path, { maxBytes: MAX_FILE_BYTES });
  if (read.ok) return read.content;
  if (read.problem === 'missing') return null;
  throw new WriteRefused(read.message);
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

/**
 * An all-or-nothing write of a validated change set. Every step is synchronous on purpose: the
 * rollback must also be able to run from a signal handler while the verification runs, when
 * there is no event loop turn left to wait for. Every read, write and removal goes through the
 * workspace opener (src/worker-sdk/workspace-file.ts), by workspace-relative path: no link is
 * followed on the way, a new file is created exclusively, an existing one is replaced by an
 * exclusive temp file renamed over its name, and a folder above that turned into a link is refused.
 */
export class FileTransaction {
  private readonly written: PlannedFile[] = [];
  private readonly createdDirs: string[] = [];

  constructor(
    private readonly workspaceRoot: string,
    private readonly files: readonly PlannedFile[],
  ) {}

  /** Creates the missing folders above a new file, remembering them so a rollback removes them. */
  private ensureParent(path: string): void {
    const parent = posix.dirname(path);
    if (parent === '.') return;
    const made = ensureWorkspaceFolder(this.workspaceRoot, parent);
    if (!made.ok) throw new WriteRefused(made.message);
    this.createdDirs.push(...made.created);
  }

  private write(file: PlannedFile): void {
    // Someone else may have changed the file since it was read: never overwrite that edit.
    if (!sameBytes(currentBytes(this.workspaceRoot, file.relative), file.before)) {
      throw new WriteRefused(`${file.relative} changed on disk while the change set was being applied`);
    }
    if (file.after === null) done(removeWorkspaceFile(this.workspaceRoot, file.relative));
    else if (file.before === null) {
      this.ensureParent(file.relative);
      done(createWorkspaceFile(this.workspaceRoot, file.relative, file.after, file.mode));
    } else done(replaceWorkspaceFile(this.workspaceRoot, file.relative, file.after, file.mode));
    this.written.push(file);
  }

  /**
   * Writes every file in order. On the first failure, everything already written is restored
   * and the error is rethrown with what the rollback could not undo, if anything.
   */
  apply(): void {
    for (const file of this.files) {
      try {
        this.write(file);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        const leftovers = this.rollback();
        throw new ApplyError(`could not write ${file.relative}: ${reason}`, leftovers);
      }
    }
  }

  /**
   * Puts every written file back as it was (restores edited and deleted files from the bytes
   * kept in memory, removes created ones and the folders made for them), newest first.
   * Returns what could not be restored; empty means the workspace is as it was.
   */
  rollback(): string[] {
    const errors: string[] = [];
    for (const file of this.written.splice(0).reverse()) {
      try {
        if (file.before === null) {
          const removed = removeWorkspaceFile(this.workspaceRoot, file.relative);
          if (!removed.ok && removed.problem !== 'missing') done(removed);
        } else if (file.after === null) {
          // Deleted: put back under its name, which nothing may have taken since.
          done(createWorkspaceFile(this.workspaceRoot, file.relative, file.before, file.mode));
        } else {
          const restored = replaceWorkspaceFile(this.workspaceRoot, file.relative, file.before, file.mode);
          // Removed by something else since it was written: it is put back all the same.
          if (!restored.ok && restored.problem === 'missing') done(createWorkspaceFile(this.workspaceRoot, file.relative, file.before, file.mode));
          else done(restored);
        }
      } catch (err) {
        errors.push(`${file.relative}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    for (const dir of this.createdDirs.splice(0).reverse()) {
      const removed = removeWorkspaceFolder(this.workspaceRoot, dir);
      // A folder something else has put files into since is left alone.
      if (!removed.ok && removed.code !== 'ENOTEMPTY') errors.push(removed.message);
    }
    return errors;
  }
}

/** A change set that failed mid-way; `unrestored` lists what the rollback could not undo. */
export class ApplyError extends Error {
  override name = 'ApplyError';
  constructor(
    message: string,
    readonly unrestored: string[],
  ) {
    super(message);
  }
}
