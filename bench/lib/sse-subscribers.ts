import { Agent, request, type ClientRequest } from 'node:http';
import { assertLoopback } from './loopback.js';
import { sleep } from './util.js';

/**
 * Many text/event-stream clients in this process, as light as they can be: each parses only the
 * `event: run` frames, keeps per run the last `seq` it saw (anything but the next one, a repeat,
 * a gap or a step back, marks the client broken) and, per event, the time from the event's `at`
 * to its arrival here.
 */
export interface SubscriberPool {
  size: number;
  /** Clients whose response head (200) arrived. */
  connected(): number;
  /** Clients whose stream ended or failed before close(). */
  dropped(): number;
  /** Run events received in order, per client, of runs whose id starts with `prefix`. */
  counts(prefix: string): number[];
  /** Clients that received an event twice or out of its run's order. */
  broken(): number;
  /** Milliseconds from each event's `at` to its arrival, every client, since the last reset. */
  latencies(): number[];
  resetLatencies(): void;
  /** Mean size of the run frames received, in bytes. */
  meanFrameBytes(): number;
  close(): void;
}

interface Client {
  req: ClientRequest;
  connected: boolean;
  ended: boolean;
  lastSeq: Map<string, number>;
  broken: boolean;
  text: string;
}

/**
 * `light`: the clients only take the bytes (no frame is parsed, nothing is counted but drops),
 * for loads where the measured side is the server and the clients should cost it least CPU.
 */
export async function openSubscribers(
  url: string,
  path: string,
  headers: Record<string, string>,
  size: number,
  options: { light?: boolean; timeoutMs?: number } = {},
): Promise<SubscriberPool> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const light = options.light === true;
  assertLoopback(url);
  const target = new URL(url);
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const clients: Client[] = [];
  let latencies: number[] = [];
  let closing = false;
  let frameBytes = 0;
  let frameCount = 0;

  const frame = (client: Client, block: string) => {
    if (!block.includes('event: run')) return;
    frameBytes += block.length + 2;
    frameCount += 1;
    const data = block.slice(block.indexOf('data: ') + 6);
    const event = JSON.parse(data) as { runId: string; seq: number; at: string };
    latencies.push(Date.now() - Date.parse(event.at));
    const last = client.lastSeq.get(event.runId) ?? 0;
    // Every run here is admitted after the clients connect: its events must arrive as 1, 2, 3, ...
    if (event.seq !== last + 1) client.broken = true;
    client.lastSeq.set(event.runId, event.seq);
  };

  const open = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const client: Client = { req: null as unknown as ClientRequest, connected: false, ended: false, lastSeq: new Map(), broken: false, text: '' };
      client.req = request(
        { host: target.hostname, port: target.port, path, agent, headers: { accept: 'text/event-stream', ...headers } },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            reject(new Error(`GET ${path} answered ${res.statusCode}`));
            return;
          }
          client.connected = true;
          res.setEncoding('utf8');
          if (light) res.on('data', () => undefined);
          else res.on('data', (chunk: string) => {
            client.text += chunk;
            let at: number;
            while ((at = client.text.indexOf('\n\n')) !== -1) {
              frame(client, client.text.slice(0, at));
              client.text = client.text.slice(at + 2);
            }
          });
          const end = () => {
            if (!closing) client.ended = true;
          };
          res.on('end', end);
          res.on('error', end);
          resolve();
        },
      );
      client.req.on('error', (err) => {
        if (!client.connected) reject(err);
        else if (!closing) client.ended = true;
      });
      client.req.end();
      clients.push(client);
    });

  const deadline = Date.now() + timeoutMs;
  // In waves: a thousand handshakes at once would only queue in the listen backlog.
  for (let i = 0; i < size; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, size - i) }, () => open()));
    if (Date.now() > deadline) throw new Error(`only ${i + 50} of ${size} subscribers connected in ${timeoutMs} ms`);
    await sleep(5);
  }

  return {
    size,
    connected: () => clients.filter((c) => c.connected).length,
    dropped: () => clients.filter((c) => c.ended).length,
    counts: (prefix) =>
      clients.map((c) => {
        let n = 0;
        for (const [runId, seq] of c.lastSeq) if (runId.startsWith(prefix)) n += seq;
        return n;
      }),
    broken: () => clients.filter((c) => c.broken).length,
    latencies: () => latencies,
    resetLatencies: () => {
      latencies = [];
    },
    meanFrameBytes: () => (frameCount === 0 ? 0 : frameBytes / frameCount),
    close: () => {
      closing = true;
      for (const client of clients) client.req.destroy();
      agent.destroy();
    },
  };
}
