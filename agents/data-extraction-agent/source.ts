import { extname, relative, sep } from 'node:path';
import { readWorkspaceFile } from '../../src/worker-sdk/workspace-file.js';
import { resolveWorkspacePath, WorkspaceBoundaryError } from '../../src/common/workspace-path.js';

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
 * Reads one workspace file through the workspace opener. The path must stay inside the workspace,
 * pass through no symbolic link (its own name included), name a regular file with one link (a
 * hard link may be a file from outside the workspace), fit the size limit (checked on the opened
 * file before reading) and hold text, not binary.
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
  const read = readWorkspaceFile(workspaceRoot, shown, { maxBytes: MAX_SOURCE_BYTES });
  if (!read.ok) {
    if (read.problem === 'missing') return { problem: `file ${shown} does not exist in the workspace` };
    if (read.problem === 'not-a-file') return { problem: `${shown} is not a regular file` };
    if (read.problem === 'too-large') return { problem: tooLarge(read.size ?? MAX_SOURCE_BYTES + 1) };
    if (read.problem === 'unreadable') return { problem: `file ${shown} cannot be read (${read.code ?? 'error'})` };
    return { problem: `file ${read.message}; it was not read` };
  }
  const buffer = read.content;
  if (buffer.includes(0)) return { problem: `file ${shown} holds binary data (NUL bytes), not text` };
  return { text: withoutBom(buffer.toString('utf8')), origin: { kind: 'file', path: shown, bytes: read.size } };
}
