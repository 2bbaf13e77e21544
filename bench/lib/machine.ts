import { execFileSync } from 'node:child_process';
import { cpus, freemem, loadavg, platform, release, tmpdir, totalmem } from 'node:os';

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
    // What else the host was running as the run began (1, 5 and 15 minutes): figures from a
    // loaded host compare only within the run.
    loadAverage: loadavg().map((n) => Number(n.toFixed(2))),
    node: process.version,
    // The services' state folders are made under the temp dir: its filesystem decides what an
    // fdatasync costs (tmpfs: nothing; ext4 on a disk: a flush), so it is part of every figure.
    stateDir: tmpdir(),
    stateFilesystem: stateFilesystem(sh),
    platform: `${platform()} ${release()}`,
    // The build measured: the doc written from these results names it.
    commit: sh('git', ['rev-parse', '--short', 'HEAD']),
    commitSubject: sh('git', ['log', '-1', '--format=%s']),
  };
}

/** Type, device and mount options of the filesystem holding the temp dir (`df -T`, `findmnt`). */
function stateFilesystem(sh: (cmd: string, args: string[]) => string | null): Record<string, string | null> {
  const df = sh('df', ['-PT', tmpdir()]);
  const fields = df?.split('\n')[1]?.split(/\s+/) ?? [];
  const mount = fields[6] ?? null;
  return {
    device: fields[0] ?? null,
    type: fields[1] ?? null,
    mountPoint: mount,
    options: mount ? sh('findmnt', ['-no', 'OPTIONS', '--target', mount]) : null,
  };
}
