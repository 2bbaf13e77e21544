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

async function diskOf(path: string): Promise<DiskFigures> {
  try {
    const fs = await statfs(path);
    const totalBytes = fs.blocks * fs.bsize;
    // bavail, not bfree: the blocks an unprivileged process (the service) can still write.
    const freeBytes = fs.bavail * fs.bsize;
    return { path, totalBytes, freeBytes, freeRatio: ratio(freeBytes, totalBytes), error: null };
  } catch (err) {
    return { path, totalBytes: null, freeBytes: null, freeRatio: null, error: (err as Error).message };
  }
}

/** Reads memory, load, uptime and the disk of `diskPath` from the OS. */
export async function readHostFigures(diskPath: string): Promise<HostFigures> {
  const totalBytes = totalmem();
  const freeBytes = freemem();
  const [one, five, fifteen] = loadavg() as [number, number, number];
  const cpuCount = Math.max(1, cpus().length);
  return {
    memory: { totalBytes, freeBytes, freeRatio: ratio(freeBytes, totalBytes) },
    workerRssBytes: process.memoryUsage().rss,
    load: { one, five, fifteen, cpuCount, onePerCpu: Math.round((one / cpuCount) * 100) / 100 },
    hostUptimeSeconds: Math.floor(uptime()),
    disk: await diskOf(diskPath),
  };
}
