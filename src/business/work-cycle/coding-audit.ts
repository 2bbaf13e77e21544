import { lstat, readdir } from 'node:fs/promises';
import { readScopedFile } from '../../worker-sdk/scoped-file.js';
import { join, relative, sep } from 'node:path';
import { hardLinkProblem } from '../../common/hard-link.js';

/**
 * coding-audit: the narrowest approved coding tool of the autonomous work cycle. It only reads,
 * only inside the project root it is given (already confined to the workspace), skips
 * node_modules, .git, symbolic links and hard-linked files (listed with the reason), never opens
 * a file that may hold a secret, and is bounded in files and bytes. Everything it returns is sanitized evidence.
 */

export const AUDIT_LIMITS = { maxFiles: 2000, maxFileBytes: 256 * 1024, maxDepth: 10, maxMatches: 50, maxListedSkips: 50 } as const;

const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'coverage']);
/** Files that may hold secrets: reading them is the secret boundary, not an inspection. */
const SECRET_FILE = /^(\.env(\..*)?|\.npmrc|\.netrc|.*\.(pem|key|p12|pfx)|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|credentials(\.json)?|secrets?\.(json|ya?ml))$/i;
const TEXT_FILE = /\.(ts|tsx|js|jsx|mjs|cjs|json|md|txt|ya?ml|toml|css|html|py|go|rs|java|sh)$/i;

export interface AuditFile {
  path: string;
  bytes: number;
}

export interface Inventory {
  files: AuditFile[];
  skippedSecretFiles: number;
  /** Files passed by for another reason than a secret (hard links), at most maxListedSkips. */
  skipped: Array<{ path: string; reason: string }>;
  truncated: boolean;
}

/** Masks assignments of secret-looking keys and long random-looking tokens in a snippet. */
export function sanitizeSnippet(line: string): string {
  return line
    .replace(/((?:password|passwd|secret|token|api[_-]?key|authorization)\s*["']?\s*[:=]\s*)(["']?)[^\s"',;]+/gi, '$1$2***')
    .replace(/\b[A-Za-z0-9+/_-]{32,}\b/g, '***')
    .trim()
    .slice(0, 160);
}

const posix = (p: string) => p.split(sep).join('/');

export async function inventory(root: string, workspaceRoot: string): Promise<Inventory> {
  const files: AuditFile[] = [];
  const skipped: Inventory['skipped'] = [];
  let skippedSecretFiles = 0;
  let truncated = false;
  async function walk(dir: string, depth: number): Promise<void> {
    if (depth > AUDIT_LIMITS.maxDepth || truncated) return;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (files.length >= AUDIT_LIMITS.maxFiles) {
        truncated = true;
        return;
      }
      const full = join(dir, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) await walk(full, depth + 1);
      } else if (entry.isFile()) {
        if (SECRET_FILE.test(entry.name)) {
          skippedSecretFiles += 1;
          continue;
        }
        const info = await lstat(full);
        const path = posix(relative(workspaceRoot, full));
        const hardLink = hardLinkProblem(info);
        if (hardLink) {
          if (skipped.length < AUDIT_LIMITS.maxListedSkips) skipped.push({ path, reason: hardLink });
          continue;
        }
        files.push({ path, bytes: info.size });
      }
    }
  }
  await walk(root, 0);
  return { files, skippedSecretFiles, skipped, truncated };
}

export interface SearchMatch {
  path: string;
  line: number;
  term: string;
  snippet: string;
}

export async function search(files: AuditFile[], workspaceRoot: string, terms: string[]): Promise<{ matches: SearchMatch[]; filesRead: number }> {
  const matches: SearchMatch[] = [];
  let filesRead = 0;
  if (terms.length === 0) return { matches, filesRead };
  for (const file of files) {
    if (!TEXT_FILE.test(file.path) || file.bytes > AUDIT_LIMITS.maxFileBytes) continue;
    // Read inside the workspace without following a link: a file swapped for one is not read.
    const read = readScopedFile(workspaceRoot, file.path, { maxBytes: AUDIT_LIMITS.maxFileBytes });
    if (!read.ok) continue;
    const text = read.content.toString('utf8');
    filesRead += 1;
    const lines = text.split('\n');
    for (let i = 0; i < lines.length && matches.length < AUDIT_LIMITS.maxMatches; i += 1) {
      const lower = lines[i]!.toLowerCase();
      const term = terms.find((t) => lower.includes(t));
      if (term) matches.push({ path: file.path, line: i + 1, term, snippet: sanitizeSnippet(lines[i]!) });
    }
    if (matches.length >= AUDIT_LIMITS.maxMatches) break;
  }
  return { matches, filesRead };
}

export interface Manifest {
  path: string | null;
  name: string | null;
  scripts: string[];
  dependencies: string[];
}

export async function manifest(root: string, workspaceRoot: string): Promise<Manifest> {
  const path = join(root, 'package.json');
  // The project's manifest, read only when it is a regular file of the workspace (a link to a
  // file outside would report its names and scripts as the project's).
  const read = readScopedFile(workspaceRoot, posix(relative(workspaceRoot, path)), { maxBytes: AUDIT_LIMITS.maxFileBytes });
  if (!read.ok) return { path: null, name: null, scripts: [], dependencies: [] };
  const text = read.content.toString('utf8');
  try {
    const pkg = JSON.parse(text) as { name?: unknown; scripts?: Record<string, unknown>; dependencies?: Record<string, unknown>; devDependencies?: Record<string, unknown> };
    return {
      path: posix(relative(workspaceRoot, path)),
      name: typeof pkg.name === 'string' ? pkg.name : null,
      scripts: Object.keys(pkg.scripts ?? {}).sort(),
      dependencies: [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})].sort(),
    };
  } catch {
    return { path: posix(relative(workspaceRoot, path)), name: null, scripts: [], dependencies: [] };
  }
}
