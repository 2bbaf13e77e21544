import { createServer } from 'node:net';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `intervalMs` until it returns a non-null value or `timeoutMs` passes (then null). */
export async function waitFor<T>(
  check: () => Promise<T | null | undefined>,
  { timeoutMs, intervalMs = 20 }: { timeoutMs: number; intervalMs?: number },
): Promise<T | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null && value !== undefined) return value;
    if (Date.now() >= deadline) return null;
    await sleep(intervalMs);
  }
}

/** Runs `fn` over `items` with at most `concurrency` in flight; results keep input order. */
export async function runPool<I, O>(items: readonly I[], concurrency: number, fn: (item: I, index: number) => Promise<O>): Promise<O[]> {
  const out = new Array<O>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
    for (;;) {
      const index = next++;
      if (index >= items.length) return;
      out[index] = await fn(items[index]!, index);
    }
  });
  await Promise.all(lanes);
  return out;
}

/** A free TCP port on 127.0.0.1 (bound then released; a small race is accepted). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resident set size of a process in MiB, from /proc/<pid>/status VmRSS; null when unreadable. */
export function rssMiB(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Linux's USER_HZ: the unit of the CPU times in /proc/<pid>/stat (100 on every common build). */
const CLOCK_TICKS_PER_SEC = 100;

/**
 * CPU time (user + system, ms) the main thread of process `pid` has used: the thread that runs
 * JavaScript, so a server's figure leaves out its thread pool (fsync, file reads) and GC helper
 * threads. Null where /proc is not available.
 */
export function mainThreadCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    // Fields after the command name, which sits in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SEC;
  } catch {
    return null;
  }
}

/** Total size in bytes of the regular files under `dir` (recursive); 0 when it does not exist. */
export function dirBytes(dir: string): number {
  let total = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      const st = statSync(path);
      if (st.isDirectory()) total += dirBytes(path);
      else if (st.isFile()) total += st.size;
    } catch {
      // removed while walking
    }
  }
  return total;
}

/** One line for the table: the first line of the message, plus its last line when there are more (e.g. a fatal from the service's output). */
export function errorMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const first = lines[0] ?? '';
  const last = lines.length > 1 ? lines[lines.length - 1]! : '';
  const line = last ? `${first} ${last}` : first;
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

/** True when a TCP connection to host:port opens within `timeoutMs` (used to skip peers whose server is down). */
export async function tcpReachable(host: string, port: number, timeoutMs = 1500): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
