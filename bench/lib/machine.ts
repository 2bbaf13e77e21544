import { execFileSync } from 'node:child_process';
import { cpus, totalmem, freemem, platform, release } from 'node:os';

/** What the figures were measured on: they only compare within one run on one machine. */
export function machineInfo(): Record<string, unknown> {
  const sh = (cmd: string, args: string[]) => {
    try {
      return execFileSync(cmd, args, { encoding: 'utf8', timeout: 5000 }).trim();
    } catch {
      return null;
    }
  };
  return {
    nproc: sh('nproc', []) ?? String(cpus().length),
    cpuModel: cpus()[0]?.model ?? null,
    memTotalGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    memFreeGiB: Number((freemem() / 2 ** 30).toFixed(1)),
    freeH: sh('free', ['-h']),
    node: process.version,
    platform: `${platform()} ${release()}`,
  };
}
