import { inspectWorkspacePath, listWorkspaceFolder, readWorkspaceText, type WorkspaceFileRefusal } from '../../src/worker-sdk/workspace-file.js';

/** Licence texts are a few KB; reading more than this of a file gains nothing. */
const MAX_TEXT_BYTES = 256 * 1024;

const LICENCE_FILE = /^(?:licen[cs]e|copying|unlicense)(?:[.-][\w.-]*)?$/i;
const README_FILE = /^readme(?:\.[\w]+)?$/i;
const NOTICE_FILE = /^notice(?:\.[\w]+)?$/i;

/** A file the review would have read or counted, and why it did not (a link, a hard link, …). */
export interface FileNotRead {
  /** Workspace-relative. */
  path: string;
  reason: string;
}

/** The compliance-relevant files at the top of a project folder, by name. */
export interface ProjectFiles {
  licences: string[];
  readme: string | null;
  notice: string | null;
  packageJson: boolean;
  /** Files with one of those names that are not regular files of the folder: never read, never counted. */
  notRead: FileNotRead[];
}

/** `name` inside the folder `dir` (workspace-relative, "." for the root). */
export function inFolder(dir: string, name: string): string {
  return dir === '.' ? name : `${dir}/${name}`;
}

export function isLicenceName(name: string): boolean {
  return LICENCE_FILE.test(name);
}

function wanted(name: string): boolean {
  return LICENCE_FILE.test(name) || README_FILE.test(name) || NOTICE_FILE.test(name) || name === 'package.json';
}

export function notReadOf(refusal: WorkspaceFileRefusal): FileNotRead {
  return { path: refusal.path, reason: refusal.reason };
}

/**
 * The compliance files of the workspace folder `dir`: only regular files count; one of their
 * names held by a link, a hard link or a FIFO is listed in `notRead` instead.
 */
export function projectFiles(workspaceRoot: string, dir: string): ProjectFiles {
  const listing = listWorkspaceFolder(workspaceRoot, dir);
  const files: string[] = [];
  const notRead: FileNotRead[] = [];
  for (const entry of listing.ok ? listing.entries : []) {
    if (!wanted(entry.name) || entry.kind === 'folder') continue;
    if (entry.kind === 'file') {
      files.push(entry.name);
      continue;
    }
    const look = inspectWorkspacePath(workspaceRoot, entry.path);
    if (!look.ok) notRead.push(notReadOf(look));
  }
  return {
    licences: files.filter((n) => LICENCE_FILE.test(n)),
    readme: files.find((n) => README_FILE.test(n)) ?? null,
    notice: files.find((n) => NOTICE_FILE.test(n)) ?? null,
    packageJson: files.includes('package.json'),
    notRead,
  };
}

/** The start of a workspace text file (bounded), or why it was not read. */
export function readTextHead(workspaceRoot: string, path: string): { ok: true; text: string } | WorkspaceFileRefusal {
  const read = readWorkspaceText(workspaceRoot, path, { headBytes: MAX_TEXT_BYTES });
  return read.ok ? { ok: true, text: read.text } : read;
}

/** A package.json: `manifest` is null when it is not a JSON object; a refusal when it was not read. */
export function readManifest(workspaceRoot: string, path: string): { ok: true; manifest: Record<string, unknown> | null } | WorkspaceFileRefusal {
  const read = readTextHead(workspaceRoot, path);
  if (!read.ok) return read;
  try {
    const value: unknown = JSON.parse(read.text);
    return { ok: true, manifest: typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null };
  } catch {
    return { ok: true, manifest: null };
  }
}
