import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configError } from '../config/errors.js';
import { DomainError } from '../domain/errors.js';
import type { TaskType } from '../task-types/task-type.js';
import { MANIFEST_FILE_NAME, parseOperatorManifest, type OperatorManifest } from './manifest.js';
import { readProgramFolder } from './program-store.js';
import { operatorTaskType } from './to-task-type.js';

/** One operator task type as read from its folder. */
export interface OperatorType {
  taskType: TaskType;
  manifest: OperatorManifest;
  /** The folder's name under the task types folder (runs record it, not the absolute path). */
  folder: string;
  directory: string;
  manifestPath: string;
  /** The manifest's digest: what a run admitted under it records, and how a reload tells a change. */
  version: string;
  /** The sha256 of the folder's files (src/operator-types/program-store.ts): the snapshot its runs execute. */
  digest: string;
}

/** A folder whose manifest was refused, with the message naming its file and field. */
export interface RefusedFolder {
  folder: string;
  message: string;
}

export interface OperatorFolderReading {
  types: OperatorType[];
  refused: RefusedFolder[];
}

function readOne(directory: string, folder: string): OperatorType {
  const manifestPath = join(directory, MANIFEST_FILE_NAME);
  let text: string;
  let data: unknown;
  try {
    text = readFileSync(manifestPath, 'utf8');
    data = JSON.parse(text);
  } catch (err) {
    throw configError(`invalid task type manifest ${manifestPath}: ${(err as Error).message}`);
  }
  const manifest = parseOperatorManifest(data, manifestPath);
  const version = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const program = readProgramFolder(directory);
  if ('problem' in program) throw configError(`invalid task type folder ${directory}: ${program.problem}`);
  return { taskType: operatorTaskType(manifest, directory), manifest, folder, directory, manifestPath, version, digest: program.digest };
}

/**
 * Reads every `<dir>/<folder>/task-type.json`, in folder order. A folder without a manifest is
 * not a type (room for shared files) and an absent `dir` holds none. A manifest that cannot be
 * read or checked, or whose type is a built-in's (`reservedTypes`) or another folder's, is
 * refused with a message naming its file and field; the other folders still load.
 */
export function readOperatorFolder(dir: string, reservedTypes: ReadonlySet<string>): OperatorFolderReading {
  if (!existsSync(dir)) return { types: [], refused: [] };
  const folders = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
  const types: OperatorType[] = [];
  const refused: RefusedFolder[] = [];
  const owners = new Map<string, string>();
  for (const folder of folders) {
    const directory = join(dir, folder);
    const manifestPath = join(directory, MANIFEST_FILE_NAME);
    if (!existsSync(manifestPath)) continue;
    try {
      const read = readOne(directory, folder);
      const type = read.manifest.type;
      if (reservedTypes.has(type)) throw configError(`invalid task type manifest ${manifestPath}: /type '${type}' is a built-in task type`);
      const owner = owners.get(type);
      if (owner) throw configError(`invalid task type manifest ${manifestPath}: /type '${type}' is already declared by ${owner}`);
      owners.set(type, manifestPath);
      types.push(read);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      refused.push({ folder, message: err.message });
    }
  }
  return { types, refused };
}

/** The folder as the service starts with it: any refused manifest stops the start, naming every one. */
export function loadOperatorTypes(dir: string, reservedTypes: ReadonlySet<string>): OperatorType[] {
  const { types, refused } = readOperatorFolder(dir, reservedTypes);
  if (refused.length > 0) throw configError(refused.map((r) => r.message).join('\n'));
  return types;
}
