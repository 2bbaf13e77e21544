import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProgrammingError } from '../domain/errors.js';

let cached: string | null = null;

/** The directory holding this project's package.json, whether running from src/ or dist/. */
export function packageRoot(): string {
  if (cached) return cached;
  const start = dirname(fileURLToPath(import.meta.url));
  let dir = start;
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string };
      if (pkg.name === 'task-orchestrator') return (cached = dir);
    }
    const parent = dirname(dir);
    if (parent === dir) {
      // The modules always run from src/ or dist/ inside their package; a copy without it is broken.
      throw new ProgrammingError(`package root not found: no package.json of task-orchestrator above ${start}`);
    }
    dir = parent;
  }
}
