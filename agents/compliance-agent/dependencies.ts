import { posix } from 'node:path';
import { resolveWorkspacePath, WorkspaceBoundaryError } from '../../src/common/workspace-path.js';
import { categoryOf, declaredLicence, type LicenceCategory } from './licence-kinds.js';
import { identifyLicenceText } from './licence-text.js';
import { inFolder, isLicenceName, notReadOf, projectFiles, readManifest, readTextHead, type FileNotRead } from './project-files.js';

/** Runtime sections ship with the project; devDependencies do not. */
const SECTIONS = ['dependencies', 'optionalDependencies', 'peerDependencies', 'devDependencies'] as const;
export type DependencySection = (typeof SECTIONS)[number];
/** A bound on how many declared dependencies are looked up. */
export const MAX_DEPENDENCIES = 2000;
/** npm package names: optional @scope/, then a name; no path segments that could climb out. */
const PACKAGE_NAME = /^(?:@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*$/i;

export interface DependencyLicence {
  name: string;
  section: DependencySection;
  /** The version range the project asks for. */
  requested: string;
  /** The installed version, from node_modules, or null when it is not installed in the scope. */
  installedVersion: string | null;
  /** SPDX id or expression; null when it could not be learned. */
  licence: string | null;
  /** Where the licence was read: the installed package's manifest or its licence file. */
  source: 'package.json' | 'licence-file' | null;
  category: LicenceCategory;
  /** Why the licence is unknown, when it is. */
  note: string | null;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function unknownLicence(name: string, section: DependencySection, requested: string, installedVersion: string | null, note: string): DependencyLicence {
  return { name, section, requested, installedVersion, licence: null, source: null, category: 'unknown', note };
}

/**
 * Looks up one dependency in the scope's node_modules: the licence its package.json declares,
 * else the licence its LICENSE file's text identifies. Never guessed from the name. Every file is
 * opened through the workspace opener: a linked package folder, a package.json or licence file
 * that is a link or a hard link is not read (`notRead`), and the dependency stays unknown.
 */
function lookUp(
  workspaceRoot: string,
  scopeRelative: string,
  name: string,
  section: DependencySection,
  requested: string,
  notRead: FileNotRead[],
): DependencyLicence {
  if (!PACKAGE_NAME.test(name)) return unknownLicence(name, section, requested, null, 'not a valid package name; not looked up');
  const dir = posix.join(scopeRelative, 'node_modules', name);
  try {
    resolveWorkspacePath(workspaceRoot, dir);
  } catch (err) {
    if (err instanceof WorkspaceBoundaryError) return unknownLicence(name, section, requested, null, 'installed outside the workspace (linked); not read');
    throw err;
  }
  const read = readManifest(workspaceRoot, inFolder(dir, 'package.json'));
  if (!read.ok) {
    if (read.problem === 'missing') return unknownLicence(name, section, requested, null, 'not installed in the scope (no node_modules/<name>/package.json)');
    notRead.push(notReadOf(read));
    return unknownLicence(name, section, requested, null, `not read: ${read.message}`);
  }
  const manifest = read.manifest;
  if (manifest === null) return unknownLicence(name, section, requested, null, 'installed, but its package.json is not a JSON object');
  const installedVersion = typeof manifest.version === 'string' ? manifest.version : null;
  const declared = declaredLicence(manifest);
  if (declared !== null) {
    return { name, section, requested, installedVersion, licence: declared, source: 'package.json', category: categoryOf(declared), note: null };
  }
  const files = projectFiles(workspaceRoot, dir);
  notRead.push(...files.notRead.filter((file) => isLicenceName(posix.basename(file.path))));
  for (const file of files.licences) {
    const text = readTextHead(workspaceRoot, inFolder(dir, file));
    if (!text.ok) notRead.push(notReadOf(text));
    const identified = text.ok ? identifyLicenceText(text.text) : null;
    if (identified) return { name, section, requested, installedVersion, licence: identified, source: 'licence-file', category: categoryOf(identified), note: null };
  }
  return unknownLicence(name, section, requested, installedVersion, 'installed, but its package.json names no licence and no licence file was recognized');
}

/** Every declared dependency of the project manifest with its licence where it can be known. */
export function dependencyLicences(
  workspaceRoot: string,
  scopeRelative: string,
  manifest: Record<string, unknown>,
): { dependencies: DependencyLicence[]; beyondLimit: number; notRead: FileNotRead[] } {
  const declared: Array<[string, DependencySection, string]> = [];
  for (const section of SECTIONS) {
    for (const [name, spec] of Object.entries(record(manifest[section]))) {
      if (declared.some(([n]) => n === name)) continue;
      declared.push([name, section, typeof spec === 'string' ? spec : JSON.stringify(spec)]);
    }
  }
  const notRead: FileNotRead[] = [];
  return {
    dependencies: declared.slice(0, MAX_DEPENDENCIES).map(([name, section, spec]) => lookUp(workspaceRoot, scopeRelative, name, section, spec, notRead)),
    beyondLimit: Math.max(0, declared.length - MAX_DEPENDENCIES),
    notRead,
  };
}
