import { join } from 'node:path';
import { assertLoopback } from '../lib/loopback.js';
import { PEERS_DIR } from '../lib/paths.js';
import { spawnPeer, type PeerProcess } from '../lib/peer-process.js';
import { rssMiB } from '../lib/util.js';

export interface BareFastify {
  url: string;
  pid: number | undefined;
  peer: PeerProcess;
  rssMiB(): number | null;
  stop(): Promise<void>;
}

/** Starts bench/peers/bare-fastify.ts as plain node on loopback; resolves once it listens. */
export interface BareFastifyOptions {
  port?: number;
  fixtureDir?: string;
  /** The durable file ceiling: records appended and fdatasynced (group commit) before each 202. */
  durableFile?: string;
  /** The PostgreSQL admission ceiling: records inserted into this table (group commit) before each 202. */
  pg?: { url: string; table: string };
  /** Deliberately broken runs only: answer 500 to every n-th trigger. */
  fail500Every?: number;
}

export async function startBareFastify(options: BareFastifyOptions = {}): Promise<BareFastify> {
  const peer = spawnPeer(join(PEERS_DIR, 'bare-fastify.ts'), { ...options });
  try {
    const ready = await peer.next<{ type: string; url: string }>('ready', 20_000);
    assertLoopback(ready.url);
    return {
      url: ready.url,
      pid: peer.child.pid,
      peer,
      rssMiB: () => rssMiB(peer.child.pid),
      stop: () => peer.kill(),
    };
  } catch (err) {
    await peer.kill();
    throw err;
  }
}
