import { open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes a worker's answer to its result file durably (temp file, fsync, rename, fsync of the
 * directory) before the answer goes to stdout. If the orchestrator dies before recording the
 * answer, restart recovery reads this file and finishes the attempt instead of running it again.
 */
export async function writeDurableResult(path: string, text: string): Promise<void> {
  const temp = `${path}.tmp`;
  const file = await open(temp, 'w', 0o600);
  try {
    await file.writeFile(text);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, path);
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
