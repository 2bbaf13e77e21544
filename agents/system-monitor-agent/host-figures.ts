import { statfs } from 'node:fs/promises';
import { cpus, freemem, loadavg, totalmem, uptime } from 'node:os';

/** Free and total bytes of the filesystem holding a folder, or why they could not be read. */
export type DiskFigures =
  | { path: string; totalBytes: number; freeBytes: number; freeRatio: number; error: null }
  | { path: string; totalBytes: null; freeBytes: null; freeRatio: null; error: string };

/** What the operating system reports right now; every number is read, none is assumed. */
export interface HostFigures {
  memory: { totalBytes: number; freeBytes: number; freeRatio: number };
  /** Resident set size of this worker process (the service's own lives in another process). */
  workerRssBytes: number;
  load: { one: number; five: number; fifteen: number; cpuCount: number; onePerCpu: number };
  hostUptimeSeconds: number;
  disk: DiskFigures;
}

function ratio(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 1000) / 1000 : 0;
}

/** `path` is the folder as results name it; the error is the code alone, since the OS message carries the absolute path. */
async function diskOf(absolute: string, path: string): Promise<DiskFigures> {
  try {
    const fs = await statfs(absolute);
    const totalBytes = fs.blocks * fs.bsize;
    // bavail, not bfree: the blocks an unprivileged process (the service) can still write.
    const freeBytes = fs.bavail * fs.bsize;
    return { path, totalBytes, freeBytes, freeRatio: ratio(freeBytes, totalBytes), error: null };
  } catch (err) {
    return { path, totalBytes: null, freeBytes: null, freeRatio: null, error: `statfs failed (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

/** Reads memory, load, uptime and the disk of `diskPath` from the OS; `diskShownAs` names that folder in the figures. */
export async function readHostFigures(diskPath: string, diskShownAs: string): Promise<HostFigures> {
  const totalBytes = totalmem();
  const freeBytes = freemem();
  const [one, five, fifteen] = loadavg() as [number, number, number];
  const cpuCount = Math.max(1, cpus().length);
  return {
    memory: { totalBytes, freeBytes, freeRatio: ratio(freeBytes, totalBytes) },
    workerRssBytes: process.memoryUsage().rss,
    load: { one, five, fifteen, cpuCount, onePerCpu: Math.round((one / cpuCount) * 100) / 100 },
    hostUptimeSeconds: Math.floor(uptime()),
    disk: await diskOf(diskPath, diskShownAs),
  };
}
