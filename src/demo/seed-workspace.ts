import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from '../config/package-root.js';
import { SAMPLE_BUSINESS_REGISTRY } from './sample-business-registry.js';
import { SAMPLE_DOCS } from './sample-docs.js';
import { SAMPLE_PROJECT_DIR, SAMPLE_PROJECT_FILES } from './sample-project.js';

export interface SeedTargets {
  workspaceRoot: string;
  docsPath: string;
  /** Where the business registry goes (config businessRegistryPath); not seeded when absent. */
  businessRegistryPath?: string;
  /** The operator task types folder (config taskTypesDir): the examples go there; not seeded when absent. */
  taskTypesDir?: string;
}

/** What the seeding did with each part: wrote it, or left an existing folder alone. */
export type SeedOutcome = 'seeded' | 'kept';

export interface SeedReport {
  docs: SeedOutcome;
  sampleProject: SeedOutcome;
  /** Absolute path of the sample project folder. */
  sampleProjectPath: string;
  businessRegistry?: SeedOutcome;
  taskTypes?: SeedOutcome;
}

/** A folder with anything in it belongs to someone; only an absent or empty one is seeded. */
function isOccupied(dir: string): boolean {
  try {
    return readdirSync(dir).length > 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/**
 * Writes every file of `files` under `dir` unless the folder is occupied. Files are created
 * with the exclusive flag, so even a file that appears meanwhile is never overwritten.
 */
function seedFolder(dir: string, files: Readonly<Record<string, string>>): SeedOutcome {
  if (isOccupied(dir)) return 'kept';
  for (const [relativePath, content] of Object.entries(files)) {
    const target = join(dir, relativePath);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content, { flag: 'wx' });
  }
  return 'seeded';
}

/**
 * Gives the demo something to work on: operator runbooks in the docs folder (for doc-sync and
 * knowledge queries) and a sample Node.js project under `projects/sample-app` (for scoped
 * lanes), a sample business registry for the business-value planner, and the example operator
 * task types in the task types folder. Each part is written
 * only when its folder (or, for the registry, its file) is absent or empty: an operator's own
 * workspace, docs or registry are never touched.
 */
export function seedDemoWorkspace(targets: SeedTargets): SeedReport {
  const sampleProjectPath = join(targets.workspaceRoot, SAMPLE_PROJECT_DIR);
  return {
    docs: seedFolder(targets.docsPath, SAMPLE_DOCS),
    sampleProject: seedFolder(sampleProjectPath, SAMPLE_PROJECT_FILES),
    sampleProjectPath,
    ...(targets.businessRegistryPath ? { businessRegistry: seedFile(targets.businessRegistryPath, SAMPLE_BUSINESS_REGISTRY) } : {}),
    ...(targets.taskTypesDir ? { taskTypes: seedExampleTypes(targets.taskTypesDir) } : {}),
  };
}

/** The example operator task types this package ships (docs/task-types.md, "Write your own task type"). */
export const EXAMPLE_TASK_TYPES_DIR = join(packageRoot(), 'examples', 'task-types');

/** Copies the example task types into an absent or empty task types folder, never over a file. */
function seedExampleTypes(dir: string): SeedOutcome {
  if (isOccupied(dir)) return 'kept';
  cpSync(EXAMPLE_TASK_TYPES_DIR, dir, { recursive: true, force: false, errorOnExist: true });
  return 'seeded';
}

/** Writes one JSON file unless a file is already there (an operator's registry is never replaced). */
function seedFile(path: string, value: unknown): SeedOutcome {
  mkdirSync(dirname(path), { recursive: true });
  try {
    writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`, { flag: 'wx' });
    return 'seeded';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return 'kept';
    throw err;
  }
}
