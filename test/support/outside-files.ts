import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';

/**
 * A workspace beside a folder outside it, for the attack cases of the workspace opener: files of
 * the workspace that are links (symbolic or hard) to files outside it, or FIFOs in a file's
 * place. Both folders live under one temporary `base`, on one file system, so hard links work.
 */
export interface OutsideFixture {
  base: string;
  workspace: string;
  /** A folder outside the workspace, holding the files the links point at. */
  outside: string;
  /** Writes `content` at `rel` of the workspace, making its folders. */
  write: (rel: string, content: string) => string;
  /** Writes `content` at `name` of the outside folder, making its folders; answers its path. */
  writeOutside: (name: string, content: string) => string;
  /** Makes `rel` of the workspace a symbolic link to `target` (an absolute path). */
  symlink: (rel: string, target: string) => void;
  /** Makes `rel` of the workspace a second name (hard link) of the file `target`. */
  hardLink: (rel: string, target: string) => void;
  /** Makes `rel` of the workspace a FIFO (no writer: a blocking read of it would never end). */
  fifo: (rel: string) => void;
  /** Removes `rel` of the workspace (a file, a link or a FIFO), so a link can take its name. */
  remove: (rel: string) => void;
  cleanup: () => void;
}

export function outsideFixture(prefix: string): OutsideFixture {
  const base = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const workspace = join(base, 'workspace');
  const outside = join(base, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
  const place = (path: string) => mkdirSync(dirname(path), { recursive: true });
  return {
    base,
    workspace,
    outside,
    write: (rel, content) => {
      const path = join(workspace, rel);
      place(path);
      writeFileSync(path, content);
      return path;
    },
    writeOutside: (name, content) => {
      const path = join(outside, name);
      place(path);
      writeFileSync(path, content);
      return path;
    },
    symlink: (rel, target) => {
      place(join(workspace, rel));
      symlinkSync(target, join(workspace, rel));
    },
    hardLink: (rel, target) => {
      place(join(workspace, rel));
      linkSync(target, join(workspace, rel));
    },
    fifo: (rel) => {
      place(join(workspace, rel));
      execFileSync('mkfifo', [join(workspace, rel)]);
    },
    remove: (rel) => rmSync(join(workspace, rel), { force: true }),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** A string no file holds by chance: put it in an outside file and look for it in results. */
export function uniqueMarker(label: string): string {
  return `OUTSIDE-${label}-${randomUUID().slice(0, 8)}`;
}

/** The lane's answer holds neither the marker nor the server's paths. */
export function expectNothingOf(result: unknown, marker: string, base: string): void {
  const text = JSON.stringify(result);
  expect(text).not.toContain(marker);
  expect(text).not.toContain(base);
}

/** Bytes and inode of a file, to show it is unchanged after a lane ran. */
export function fileState(path: string): { content: string; ino: number; mtimeMs: number } {
  const stats = lstatSync(path);
  return { content: readFileSync(path, 'utf8'), ino: stats.ino, mtimeMs: stats.mtimeMs };
}

/** FIFOs need mkfifo; hard links and O_NOFOLLOW need a POSIX system. */
export const POSIX = process.platform !== 'win32';
