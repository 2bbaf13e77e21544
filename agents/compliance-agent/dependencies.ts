import { join } from 'node:path';
import { resolveWorkspacePath, WorkspaceBoundaryError } from '../../src/workspace/boundary.js';
import { categoryOf, declaredLicence, type LicenceCategory } from './licence-kinds.js';
import { identifyLicenceText } from './licence-text.js';
import { licenceFilesIn, readManifest, readTextHead } from './project-files.js';

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
 * else the licence its LICENSE file's text identifies. Never guessed from the name.
 */
function lookUp(workspaceRoot: string, scopeRelative: string, name: string, section: DependencySection, requested: string): DependencyLicence {
  if (!PACKAGE_NAME.test(name)) return unknownLicence(name, section, requested, null, 'not a valid package name; not looked up');
  let dir: string;
  try {
    dir = resolveWorkspacePath(workspaceRoot, join(scopeRelative, 'node_modules', name));
  } catch (err) {
    if (err instanceof WorkspaceBoundaryError) return unknownLicence(name, section, requested, null, 'installed outside the workspace (linked); not read');
    throw err;
  }
  const manifest = readManifest(join(dir, 'package.json'));
  if (manifest === null) return unknownLicence(name, section, requested, null, 'not installed in the scope (no node_modules/<name>/package.json)');
  const installedVersion = typeof manifest.version === 'string' ? manifest.version : null;
  const declared = declaredLicence(manifest);
  if (declared !== null) {
    return { name, section, requested, installedVersion, licence: declared, source: 'package.json', category: categoryOf(declared), note: null };
  }
  for (const file of licenceFilesIn(dir)) {
    const text = readTextHead(join(dir, file));
    const identified = text === null ? null : identifyLicenceText(text);
    if (identified) return { name, section, requested, installedVersion, licence: identified, source: 'licence-file', category: categoryOf(identified), note: null };
  }
  return unknownLicence(name, section, requested, installedVersion, 'installed, but its package.json names no licence and no licence file was recognized');
}

/** Every declared dependency of the project manifest with its licence where it can be known. */
export function dependencyLicences(
  workspaceRoot: string,
  scopeRelative: string,
  manifest: Record<string, unknown>,
): { dependencies: DependencyLicence[]; beyondLimit: number } {
  const declared: Array<[string, DependencySection, string]> = [];
  for (const section of SECTIONS) {
    for (const [name, spec] of Object.entries(record(manifest[section]))) {
      if (declared.some(([n]) => n === name)) continue;
      declared.push([name, section, typeof spec === 'string' ? spec : JSON.stringify(spec)]);
    }
  }
  return {
    dependencies: declared.slice(0, MAX_DEPENDENCIES).map(([name, section, spec]) => lookUp(workspaceRoot, scopeRelative, name, section, spec)),
    beyondLimit: Math.max(0, declared.length - MAX_DEPENDENCIES),
  };
}
