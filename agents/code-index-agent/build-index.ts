import { readScopedFile } from '../../src/worker-sdk/workspace-file.js';
import { findExports, type ExportedSymbol } from './exports.js';
import { findImports, type ImportKind } from './imports.js';
import { resolveImport } from './resolve-import.js';
import { languageOf, MAX_SOURCE_BYTES, type SourceFile } from './source-files.js';
import { stripSource } from './strip-source.js';

export interface IndexedImport {
  specifier: string;
  kind: ImportKind;
  line: number;
  /** The workspace-relative file it loads, or null for packages and unresolved imports. */
  resolved: string | null;
  /** The package it names, for imports that are not relative. */
  package: string | null;
}

export interface IndexedFile {
  path: string;
  language: 'typescript' | 'javascript';
  symbols: Array<Pick<ExportedSymbol, 'name' | 'kind' | 'line'> & Partial<Pick<ExportedSymbol, 'target' | 'from'>>>;
  imports: IndexedImport[];
}

export interface ExternalImport {
  package: string;
  builtin: boolean;
  importedBy: string[];
}

export interface IndexProblem {
  file: string;
  problem: string;
}

/** A type alias, not an interface, so a lane result built on it stays a plain record. */
export type CodeIndex = {
  files: IndexedFile[];
  edges: Array<{ from: string; to: string }>;
  externalImports: ExternalImport[];
  problems: IndexProblem[];
};

/** Reads, strips and scans every listed file; relative imports become edges between files. */
export function buildIndex(workspaceRoot: string, sources: SourceFile[]): CodeIndex {
  const indexed = new Set(sources.map((s) => s.path));
  const files: IndexedFile[] = [];
  const edges = new Map<string, { from: string; to: string }>();
  const external = new Map<string, ExternalImport>();
  const problems: IndexProblem[] = [];

  for (const source of sources) {
    const read = readScopedFile(workspaceRoot, source.path, { maxBytes: MAX_SOURCE_BYTES });
    if (!read.ok) {
      problems.push({ file: source.path, problem: `unreadable: ${read.message}` });
      continue;
    }
    const text = read.content.toString('utf8');
    const stripped = stripSource(text, { jsx: /x$/.test(source.path) });
    if (stripped.problem) problems.push({ file: source.path, problem: stripped.problem });
    const imports: IndexedImport[] = findImports(stripped.code).map((ref) => {
      const resolution = resolveImport(workspaceRoot, source.path, ref.specifier, indexed);
      if (resolution.kind === 'file') {
        edges.set(`${source.path}\n${resolution.path}`, { from: source.path, to: resolution.path });
        return { ...ref, resolved: resolution.path, package: null };
      }
      if (resolution.kind === 'external') {
        const entry = external.get(resolution.packageName) ?? { package: resolution.packageName, builtin: resolution.builtin, importedBy: [] };
        if (!entry.importedBy.includes(source.path)) entry.importedBy.push(source.path);
        external.set(resolution.packageName, entry);
        return { ...ref, resolved: null, package: resolution.packageName };
      }
      problems.push({ file: source.path, problem: `line ${ref.line}: import "${ref.specifier}" does not resolve (${resolution.reason})` });
      return { ...ref, resolved: null, package: null };
    });
    files.push({ path: source.path, language: languageOf(source.path), symbols: findExports(stripped.code), imports });
  }

  return {
    files,
    edges: [...edges.values()],
    externalImports: [...external.values()].sort((a, b) => a.package.localeCompare(b.package)),
    problems,
  };
}
