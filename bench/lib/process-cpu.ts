/**
 * CPU time per process over a measured phase, so a row shows whether the service, the peer or
 * the database was the limit. Whole processes (every thread), read from /proc; PostgreSQL is
 * every process named `postgres` on this machine (its backends included), so other work on a
 * shared server shows up in it too.
 */
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SEC = 100;

function statFields(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return [stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ...stat.slice(stat.lastIndexOf(')') + 2).split(' ')];
  } catch {
    return null;
  }
}

/** User + system CPU ms of a whole process (all threads); null when unreadable. */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  const f = statFields(pid);
  // After the name: utime and stime are fields 12 and 13 (0-based, name excluded) -> 13, 14 here.
  return f ? ((Number(f[12]) + Number(f[13])) * 1000) / CLOCK_TICKS_PER_SEC : null;
}

/** CPU ms of every `postgres` process alive now (server and backends). */
export function postgresCpuMs(): number {
  let total = 0;
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    const f = statFields(pid);
    if (f && f[0] === 'postgres') total += ((Number(f[12]) + Number(f[13])) * 1000) / CLOCK_TICKS_PER_SEC;
  }
  return total;
}

export type CpuSources = Record<string, () => number | null>;

/** Starts a meter over named sources; `stop()` gives each one's CPU seconds over the phase. */
export function cpuMeter(sources: CpuSources): { stop(): Record<string, number | null> } {
  const before = Object.fromEntries(Object.entries(sources).map(([name, read]) => [name, read()]));
  return {
    stop() {
      const out: Record<string, number | null> = {};
      for (const [name, read] of Object.entries(sources)) {
        const a = before[name];
        const b = read();
        out[name] = a === null || a === undefined || b === null ? null : Math.round(b - a) / 1000;
      }
      return out;
    },
  };
}

/** "service 3.1 s, postgres 4.2 s, bench 1.0 s" for a row's note. */
export function describeCpu(cpu: Record<string, number | null>, wallSec?: number): string {
  const parts = Object.entries(cpu)
    .filter(([, v]) => v !== null)
    .map(([name, v]) => `${name} ${v!.toFixed(1)} s`);
  const wall = wallSec === undefined ? '' : ` over ${wallSec.toFixed(1)} s`;
  return parts.length ? `CPU ${parts.join(', ')}${wall}` : 'CPU not readable';
}

/** The bench process itself (the load generator and pollers). */
export const benchCpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
