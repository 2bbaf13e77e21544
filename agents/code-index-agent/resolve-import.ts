import { builtinModules } from 'node:module';
import { posix } from 'node:path';
import { inspectWorkspacePath, readWorkspaceText } from '../../src/worker-sdk/workspace-file.js';

const BUILTINS = new Set(builtinModules);
/** A folder's package.json larger than this is not a manifest worth reading for its `main`. */
const MAX_MANIFEST_BYTES = 1024 * 1024;
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.d.ts'];
/** TypeScript ESM imports name the compiled file (`./a.js`) while the source is `./a.ts`. */
const SOURCE_FOR_OUTPUT: Record<string, string[]> = { '.js': ['.ts', '.tsx', '.d.ts'], '.jsx': ['.tsx'], '.mjs': ['.mts', '.d.mts'], '.cjs': ['.cts', '.d.cts'] };

export type Resolution =
  | { kind: 'file'; path: string }
  | { kind: 'external'; packageName: string; builtin: boolean }
  | { kind: 'unresolved'; reason: string };

export function isRelative(specifier: string): boolean {
  return specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../');
}

/** `@scope/pkg/sub` → `@scope/pkg`, `lodash/fp` → `lodash`, `node:fs` → `node:fs`. */
export function packageNameOf(specifier: string): string {
  if (specifier.startsWith('node:')) return specifier.split('/')[0]!;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Candidate files for a relative specifier, most likely first. */
function candidates(base: string): string[] {
  const ext = posix.extname(base);
  const list = [base];
  for (const source of SOURCE_FOR_OUTPUT[ext] ?? []) list.push(base.slice(0, -ext.length) + source);
  for (const extension of EXTENSIONS) list.push(base + extension);
  for (const extension of EXTENSIONS) list.push(`${base}/index${extension}`);
  return list;
}

/**
 * The `main` of a folder's package.json, for `require('../')` style imports of a package folder.
 * Read through the workspace opener: a package.json that is a link or a hard link has no `main`.
 */
function packageMain(workspaceRoot: string, dir: string): string | null {
  const read = readWorkspaceText(workspaceRoot, posix.join(dir, 'package.json'), { maxBytes: MAX_MANIFEST_BYTES });
  if (!read.ok) return null;
  try {
    const manifest: unknown = JSON.parse(read.text);
    const main = (manifest as { main?: unknown }).main;
    return typeof main === 'string' && main.trim() !== '' ? posix.normalize(posix.join(dir, main)).replace(/\/$/, '') : null;
  } catch {
    return null;
  }
}

/**
 * Resolves an import of `fromFile` (workspace-relative) to the workspace-relative file it
 * loads, the external package it names, or says why neither was found. Indexed files are
 * checked first; a file outside the scope but inside the workspace still resolves.
 */
export function resolveImport(workspaceRoot: string, fromFile: string, specifier: string, indexed: ReadonlySet<string>): Resolution {
  if (!isRelative(specifier)) {
    if (specifier.startsWith('/') || /^[a-z]+:\/\//i.test(specifier)) return { kind: 'unresolved', reason: 'absolute path or URL' };
    const packageName = packageNameOf(specifier);
    return { kind: 'external', packageName, builtin: packageName.startsWith('node:') || BUILTINS.has(packageName) };
  }
  const base = posix.normalize(posix.join(posix.dirname(fromFile), specifier)).replace(/\/$/, '');
  if (base === '..' || base.startsWith('../')) return { kind: 'unresolved', reason: 'leaves the workspace' };
  const main = packageMain(workspaceRoot, base);
  const options = [...candidates(base), ...(main ? candidates(main) : [])];
  const hit = options.find((option) => indexed.has(option));
  if (hit) return { kind: 'file', path: hit };
  // Files outside the index are looked at, never opened: links (wherever they lead) and hard
  // links are not followed, and the first one met is named as the reason.
  let refused: string | null = null;
  for (const option of options) {
    const look = inspectWorkspacePath(workspaceRoot, option);
    if (look.ok && look.kind === 'file') return { kind: 'file', path: option };
    if (!look.ok && refused === null && look.problem !== 'missing' && look.problem !== 'not-a-file') refused = look.message;
  }
  return { kind: 'unresolved', reason: refused === null ? 'no such file' : `not followed: ${refused}` };
}
