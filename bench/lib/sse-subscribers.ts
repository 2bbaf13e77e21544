import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request, type ClientRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { onCleanup } from './cleanup.js';
import { assertLoopback } from './loopback.js';
import { sleep } from './util.js';

/**
 * Many text/event-stream clients, held by a child process of their own: reading a thousand
 * sockets costs CPU, and on the bench's event loop it would slow down whatever that loop times
 * (the load generator, the waits), so each pool gets its own process and the bench only asks it
 * for tallies. Each client parses only the `event: run` frames, keeps per run the last `seq` it
 * saw (anything but the next one, a repeat, a gap or a step back, marks the client broken) and,
 * per event, the time from the event's `at` to its arrival.
 */
export interface SubscriberPool {
  size: number;
  /** What the clients hold of the runs whose id starts with `prefix`. */
  tally(prefix: string): Promise<PoolTally>;
  /** Milliseconds from each event's `at` to its arrival, every client, since the last call (which resets them). */
  takeLatencies(): Promise<Float64Array>;
  /** Ends every client and the pool's process. */
  close(): Promise<void>;
}

export interface PoolTally {
  /** Clients whose response head (200) arrived. */
  connected: number;
  /** Clients whose stream ended or failed before close(). */
  dropped: number;
  /** Clients that received an event twice or out of its run's order. */
  broken: number;
  /** Run events received in order, per client, of the runs named `prefix…`. */
  counts: number[];
  /** Mean size of the run frames received, in bytes. */
  meanFrameBytes: number;
}

export interface PoolOptions {
  /** The clients only take the bytes (no frame is parsed, only drops are counted): the cheapest clients for the server. */
  light?: boolean;
  timeoutMs?: number;
}

type Request =
  | { type: 'open'; url: string; path: string; headers: Record<string, string>; size: number; light: boolean; timeoutMs: number }
  | { type: 'tally'; prefix: string }
  | { type: 'latencies' };

interface Reply {
  id: number;
  error?: string;
  value?: unknown;
}

const CHILD_FLAG = 'BENCH_SSE_SUBSCRIBERS_CHILD';

/** Opens `size` clients of `url` + `path` in a new child process; resolves once all are connected. */
export async function openSubscribers(url: string, path: string, headers: Record<string, string>, size: number, options: PoolOptions = {}): Promise<SubscriberPool> {
  assertLoopback(url);
  // The same module, run by the same loader (process.execArgv) in a plain child process.
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, [CHILD_FLAG]: '1' },
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = onCleanup(`sse subscribers pid ${child.pid}`, async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const ask = askOver(child, exited);
  try {
    await ask({ type: 'open', url, path, headers, size, light: options.light === true, timeoutMs: options.timeoutMs ?? 60_000 });
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    size,
    tally: (prefix) => ask({ type: 'tally', prefix }) as Promise<PoolTally>,
    takeLatencies: () => ask({ type: 'latencies' }) as Promise<Float64Array>,
    close: stop,
  };
}

/** Request/answer over the child's IPC channel, one id per question. */
function askOver(child: ChildProcess, exited: Promise<void>): (request: Request) => Promise<unknown> {
  let nextId = 1;
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  child.on('message', (raw) => {
    const reply = raw as Reply;
    const waiter = waiting.get(reply.id);
    if (waiter === undefined) return;
    waiting.delete(reply.id);
    if (reply.error !== undefined) waiter.reject(new Error(reply.error));
    else waiter.resolve(reply.value);
  });
  void exited.then(() => {
    for (const waiter of waiting.values()) waiter.reject(new Error('the subscribers process exited'));
    waiting.clear();
  });
  return (req) =>
    new Promise((resolve, reject) => {
      if (!child.connected) {
        reject(new Error('the subscribers process is gone'));
        return;
      }
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      child.send({ id, ...req });
    });
}

// ---- The child: the clients themselves. ----

interface Client {
  req: ClientRequest;
  connected: boolean;
  ended: boolean;
  lastSeq: Map<string, number>;
  broken: boolean;
  /** The start of a frame whose end has not arrived yet. */
  rest: string;
}

/** Arrival delays, in a growable typed array (hundreds of thousands of them per round). */
class Samples {
  private values = new Float64Array(1 << 16);
  private length = 0;
  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }
  take(): Float64Array {
    const taken = this.values.slice(0, this.length);
    this.length = 0;
    return taken;
  }
}

/** The value after `key` in a frame's JSON, up to `end` (the keys are the service's and come before any free text). */
function field(block: string, key: string, end: string, from: number): string {
  const at = block.indexOf(key, from) + key.length;
  return block.slice(at, block.indexOf(end, at));
}

function childPool() {
  const clients: Client[] = [];
  const latencies = new Samples();
  let agent: Agent | null = null;
  let frameBytes = 0;
  let frameCount = 0;

  // Cheaper than JSON.parse on every frame: the three fields the checks and the latency need.
  const frame = (client: Client, block: string, arrived: number) => {
    const data = block.indexOf('event: run\ndata: ');
    if (data === -1) return;
    frameBytes += block.length + 2;
    frameCount += 1;
    const runId = field(block, '"runId":"', '"', data);
    const seq = Number(field(block, '"seq":', ',', data));
    latencies.push(arrived - Date.parse(field(block, '"at":"', '"', data)));
    const last = client.lastSeq.get(runId) ?? 0;
    // Every run here is admitted after the clients connect: its events must arrive as 1, 2, 3, ...
    if (seq !== last + 1) client.broken = true;
    client.lastSeq.set(runId, seq);
  };

  const open = (target: URL, path: string, headers: Record<string, string>, light: boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      const client: Client = { req: null as unknown as ClientRequest, connected: false, ended: false, lastSeq: new Map(), broken: false, rest: '' };
      client.req = request({ host: target.hostname, port: target.port, path, agent: agent!, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`GET ${path} answered ${res.statusCode}`));
          return;
        }
        client.connected = true;
        if (light) res.on('data', () => undefined);
        else
          res.on('data', (chunk: Buffer) => {
            const arrived = Date.now();
            // latin1: one character per byte, so frame sizes are byte counts (the parsed fields are ASCII).
            const text = client.rest + chunk.toString('latin1');
            let start = 0;
            let end: number;
            while ((end = text.indexOf('\n\n', start)) !== -1) {
              frame(client, text.slice(start, end), arrived);
              start = end + 2;
            }
            client.rest = start === 0 ? text : text.slice(start);
          });
        const ended = () => {
          client.ended = true;
        };
        res.on('end', ended);
        res.on('error', ended);
        resolve();
      });
      client.req.on('error', (err) => {
        if (!client.connected) reject(err);
        else client.ended = true;
      });
      client.req.end();
      clients.push(client);
    });

  return {
    async open(req: Extract<Request, { type: 'open' }>): Promise<void> {
      const target = new URL(req.url);
      agent = new Agent({ keepAlive: false, maxSockets: Infinity });
      const deadline = Date.now() + req.timeoutMs;
      // In waves: a thousand handshakes at once would only queue in the listen backlog.
      for (let i = 0; i < req.size; i += 50) {
        await Promise.all(Array.from({ length: Math.min(50, req.size - i) }, () => open(target, req.path, req.headers, req.light)));
        if (Date.now() > deadline) throw new Error(`only ${i + 50} of ${req.size} subscribers connected in ${req.timeoutMs} ms`);
        await sleep(5);
      }
    },
    tally(prefix: string): PoolTally {
      return {
        connected: clients.filter((c) => c.connected).length,
        dropped: clients.filter((c) => c.ended).length,
        broken: clients.filter((c) => c.broken).length,
        counts: clients.map((c) => {
          let n = 0;
          for (const [runId, seq] of c.lastSeq) if (runId.startsWith(prefix)) n += seq;
          return n;
        }),
        meanFrameBytes: frameCount === 0 ? 0 : frameBytes / frameCount,
      };
    },
    latencies: () => latencies.take(),
  };
}

function runChild(): void {
  const pool = childPool();
  // The bench gone (or done with the pool): nothing here is worth keeping.
  process.on('disconnect', () => process.exit(0));
  process.on('message', (raw) => {
    const req = raw as Request & { id: number };
    const answer = async (): Promise<unknown> => {
      if (req.type === 'open') return pool.open(req);
      if (req.type === 'tally') return pool.tally(req.prefix);
      return pool.latencies();
    };
    answer().then(
      (value) => process.send!({ id: req.id, value }),
      (err: Error) => process.send!({ id: req.id, error: err.message }),
    );
  });
}

if (process.env[CHILD_FLAG] === '1' && process.send !== undefined) runChild();
