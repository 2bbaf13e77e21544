import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { PlannedFile } from './plan-changes.js';
import { lstatOrNull, workspaceRelative } from './scope.js';

/**
 * Writes `content` next to `target` and renames it into place, so a reader (or a crash) sees
 * the old file or the new one, never half of either.
 */
function replaceAtomically(target: string, content: Buffer, mode: number | null): void {
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(temp, content, { flag: 'wx', mode: mode ?? 0o644 });
    // The umask may have narrowed the mode; the file keeps the permissions it had.
    if (mode !== null) chmodSync(temp, mode);
    renameSync(temp, target);
  } catch (err) {
    if (lstatOrNull(temp) !== null) unlinkSync(temp);
    throw err;
  }
}

function currentBytes(path: string): Buffer | null {
  return lstatOrNull(path) === null ? null : readFileSync(path);
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

/**
 * An all-or-nothing write of a validated change set. Every step is synchronous on purpose: the
 * rollback must also be able to run from a signal handler while the verification runs, when
 * there is no event loop turn left to wait for.
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
    const missing: string[] = [];
    for (let dir = dirname(path); lstatOrNull(dir) === null; dir = dirname(dir)) missing.unshift(dir);
    for (const dir of missing) {
      mkdirSync(dir);
      this.createdDirs.push(dir);
    }
  }

  private write(file: PlannedFile): void {
    // Someone else may have changed the file since it was read: never overwrite that edit.
    if (!sameBytes(currentBytes(file.absolute), file.before)) {
      throw new Error(`${file.relative} changed on disk while the change set was being applied`);
    }
    if (file.after === null) unlinkSync(file.absolute);
    else {
      this.ensureParent(file.absolute);
      replaceAtomically(file.absolute, file.after, file.mode);
    }
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
          if (lstatOrNull(file.absolute) !== null) unlinkSync(file.absolute);
        } else {
          replaceAtomically(file.absolute, file.before, file.mode);
        }
      } catch (err) {
        errors.push(`${file.relative}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    for (const dir of this.createdDirs.splice(0).reverse()) {
      try {
        rmdirSync(dir);
      } catch (err) {
        // A folder something else has put files into since is left alone.
        if ((err as NodeJS.ErrnoException).code !== 'ENOTEMPTY') errors.push(`${workspaceRelative(this.workspaceRoot, dir)}: ${(err as Error).message}`);
      }
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
