import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SAMPLE_DOCS } from './sample-docs.js';
import { SAMPLE_PROJECT_DIR, SAMPLE_PROJECT_FILES } from './sample-project.js';

export interface SeedTargets {
  workspaceRoot: string;
  docsPath: string;
}

/** What the seeding did with each part: wrote it, or left an existing folder alone. */
export type SeedOutcome = 'seeded' | 'kept';

export interface SeedReport {
  docs: SeedOutcome;
  sampleProject: SeedOutcome;
  /** Absolute path of the sample project folder. */
  sampleProjectPath: string;
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
 * lanes). Each part is written only when its folder is absent or empty: an operator's own
 * workspace or docs are never touched.
 */
export function seedDemoWorkspace(targets: SeedTargets): SeedReport {
  const sampleProjectPath = join(targets.workspaceRoot, SAMPLE_PROJECT_DIR);
  return {
    docs: seedFolder(targets.docsPath, SAMPLE_DOCS),
    sampleProject: seedFolder(sampleProjectPath, SAMPLE_PROJECT_FILES),
    sampleProjectPath,
  };
}
