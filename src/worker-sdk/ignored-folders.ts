/**
 * Why a folder is not the project's own material:
 * - `dependencies`: installed packages, written by a package manager;
 * - `version-control`: the repository's history and metadata;
 * - `build-output`: what a build or a test run generates from the sources (compiled code,
 *   bundles, coverage), rebuilt on every run.
 */
export type IgnoredFolderKind = 'dependencies' | 'version-control' | 'build-output';

/** Every kind: a walk that wants only the sources a person wrote. */
export const ALL_IGNORED_KINDS: readonly IgnoredFolderKind[] = ['dependencies', 'version-control', 'build-output'];

/**
 * Dependencies and version control only: a walk that must still see generated files, because the
 * evidence it looks for lives there (test reports under `build/` or `target/`, a secret inlined
 * into a bundle under `dist/`).
 */
export const SOURCE_CONTROL_KINDS: readonly IgnoredFolderKind[] = ['dependencies', 'version-control'];

/** The one ignore list of the lanes, by folder name (a name, never a path: it matches at any depth). */
export const IGNORED_FOLDERS: ReadonlyMap<string, IgnoredFolderKind> = new Map<string, IgnoredFolderKind>([
  ['node_modules', 'dependencies'],
  ['bower_components', 'dependencies'],
  ['.git', 'version-control'],
  ['.hg', 'version-control'],
  ['.svn', 'version-control'],
  ['dist', 'build-output'],
  ['build', 'build-output'],
  ['out', 'build-output'],
  ['coverage', 'build-output'],
  ['.nyc_output', 'build-output'],
  ['.next', 'build-output'],
  ['.nuxt', 'build-output'],
  ['.turbo', 'build-output'],
  ['.parcel-cache', 'build-output'],
  ['target', 'build-output'],
]);

/** Is a folder of this name one a walk (or a write) passes by, for the kinds given? */
export function isIgnoredFolder(name: string, kinds: readonly IgnoredFolderKind[] = ALL_IGNORED_KINDS): boolean {
  const kind = IGNORED_FOLDERS.get(name);
  return kind !== undefined && kinds.includes(kind);
}
