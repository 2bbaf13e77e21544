/**
 * A Redis of the bench's own, started from the `redis-server` binary on a free loopback port
 * with `appendonly yes` and `appendfsync always`: every write is in the append-only file and
 * fsynced before Redis answers, the durability the service's 202 promises. It lives in a temp
 * dir and is killed (process group) and removed at cleanup.
 */
import { spawn, spawnSync } from 'node:child_process';
import { onCleanup } from './cleanup.js';
import { makeBaseDir } from './service.js';
import { freePort, sleep, tcpReachable } from './util.js';

export interface OwnRedis {
  url: string;
  stop(): Promise<void>;
}

/** The redis-server binary on PATH, or null. */
export function redisServerBinary(): string | null {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path ? path : null;
}

export async function startDurableRedis(binary: string): Promise<OwnRedis> {
  const dir = makeBaseDir('orch-bench-redis-');
  const port = await freePort();
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir.dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--daemonize', 'no'],
    { detached: true, stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = onCleanup(`redis-server pid ${child.pid} port ${port}`, async () => {
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
    }
  });
  const stop = async () => {
    await kill();
    await dir.remove();
  };
  for (let i = 0; i < 100; i++) {
    if (await tcpReachable('127.0.0.1', port, 200)) return { url: `redis://127.0.0.1:${port}`, stop };
    if (child.exitCode !== null) break;
    await sleep(50);
  }
  await stop();
  throw new Error(`redis-server did not listen on 127.0.0.1:${port}`);
}
