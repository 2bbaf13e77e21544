import { readFile, stat } from 'node:fs/promises';
import { extname, relative, sep } from 'node:path';
import { resolveWorkspacePath, WorkspaceBoundaryError } from '../../src/workspace/boundary.js';

export const FORMATS = ['csv', 'json', 'jsonl', 'html', 'markdown', 'text'] as const;
export type SourceFormat = (typeof FORMATS)[number];

/** Sources larger than this are refused unread: 5 MiB of records is beyond one worker answer. */
export const MAX_SOURCE_BYTES = 5 * 1024 * 1024;

/** The format a file extension stands for, used when the payload names none. */
const FORMAT_BY_EXTENSION: Readonly<Record<string, SourceFormat>> = {
  '.csv': 'csv',
  '.json': 'json',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.html': 'html',
  '.htm': 'html',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.txt': 'text',
  '.text': 'text',
};

export function formatFromExtension(path: string): SourceFormat | null {
  return FORMAT_BY_EXTENSION[extname(path).toLowerCase()] ?? null;
}

/** Where the text came from: inline in the payload, or a file named relative to the workspace. */
export type SourceOrigin = { kind: 'inline'; path: null; bytes: number } | { kind: 'file'; path: string; bytes: number };

export type LoadedSource = { text: string; origin: SourceOrigin } | { problem: string };

function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function tooLarge(bytes: number): string {
  return `the source is ${bytes} bytes, over the ${MAX_SOURCE_BYTES}-byte limit of one extraction; split it and extract the parts`;
}

export function loadInline(content: string): LoadedSource {
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > MAX_SOURCE_BYTES) return { problem: tooLarge(bytes) };
  return { text: withoutBom(content), origin: { kind: 'inline', path: null, bytes } };
}

/**
 * Reads one workspace file. The path must stay inside the workspace (symbolic links included),
 * name a regular file, fit the size limit (checked before reading) and hold text, not binary.
 */
export async function loadFile(workspaceRoot: string, path: string): Promise<LoadedSource> {
  let absolute: string;
  try {
    absolute = resolveWorkspacePath(workspaceRoot, path);
  } catch (err) {
    if (err instanceof WorkspaceBoundaryError) return { problem: err.message };
    throw err;
  }
  const shown = relative(workspaceRoot, absolute).split(sep).join('/');
  let info;
  try {
    info = await stat(absolute);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' ? `file ${shown} does not exist in the workspace` : `file ${shown} cannot be read (${code ?? 'error'})` };
  }
  if (!info.isFile()) return { problem: `${shown} is not a regular file` };
  if (info.size > MAX_SOURCE_BYTES) return { problem: tooLarge(info.size) };
  const buffer = await readFile(absolute);
  if (buffer.includes(0)) return { problem: `file ${shown} holds binary data (NUL bytes), not text` };
  return { text: withoutBom(buffer.toString('utf8')), origin: { kind: 'file', path: shown, bytes: info.size } };
}
