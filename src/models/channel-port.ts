import type { Server } from 'node:net';
import type { LlmConfig } from '../config/types.js';
import { DomainError } from '../domain/errors.js';

/** The ports the channel may listen on (config `llm.channelPort` or `llm.channelPortRange`); null: one the system picks. */
export type ChannelPorts = NonNullable<LlmConfig['channelPorts']> | null;

/** Why a port cannot be had: taken by another process, or not open to this one (a privileged port). */
const PORT_REFUSALS = new Set(['EADDRINUSE', 'EACCES']);

function listenOnce(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (err: Error) => reject(err);
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', fail);
      resolve();
    });
  });
}

/**
 * Listens on 127.0.0.1 (always loopback, whatever the setting) at the first free port of `ports`,
 * tried in order, or at a port the system picks when none is configured; resolves the port. When
 * every configured port is taken the failure names the setting: `unavailable`, so the attempt
 * that needed the channel fails with that reason and a later one tries the ports again.
 */
export async function listenOnChannelPort(server: Server, ports: ChannelPorts): Promise<number> {
  const candidates = ports === null ? [0] : Array.from({ length: ports.last - ports.first + 1 }, (_, i) => ports.first + i);
  let refused: string | null = null;
  for (const port of candidates) {
    try {
      await listenOnce(server, port);
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('the model channel has no TCP address');
      return address.port;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (ports === null || code === undefined || !PORT_REFUSALS.has(code)) throw err;
      refused = code;
    }
  }
  throw new DomainError(
    'unavailable',
    `the model channel cannot listen: no port of ${ports?.setting ?? 'the system'} is free on 127.0.0.1 (last refusal ${refused ?? 'none'})`,
  );
}
