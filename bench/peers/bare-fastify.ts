/**
 * Peer process: a bare Fastify server, the ceiling for the service's HTTP figures. No auth,
 * no validation beyond JSON parsing, no store, no logger. Self-contained: it is transpiled and
 * run as plain `node` (see bench/lib/peer-process.ts).
 *
 *   POST /api/tasks/trigger  -> 202 with the trigger response shape, nothing stored
 *   GET  /health             -> 200 {status: 'healthy'}, or the bytes of <fixtureDir>/health.json when given
 *   GET  /fixture/:name      -> bytes loaded at start from <fixtureDir>/<name>.json (a perfect cache)
 *
 * With `durableFile` set it is the durable ceiling instead: each trigger appends its record as a
 * line to that file and answers only once an fdatasync covering the line returned. Syncs are
 * group-committed (one in flight; the lines that arrive meanwhile share the next one), the least
 * any store must do for a 202 to survive power loss.
 */
import Fastify from 'fastify';
import { randomUUID } from 'node:crypto';
import { fdatasync, openSync, readFileSync, readdirSync, write } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';

interface Args {
  port?: number;
  fixtureDir?: string;
  durableFile?: string;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;

const fixtures = new Map<string, Buffer>();
if (args.fixtureDir) {
  for (const name of readdirSync(args.fixtureDir)) {
    if (name.endsWith('.json')) fixtures.set(name.slice(0, -5), readFileSync(join(args.fixtureDir, name)));
  }
}

const app = Fastify({ logger: false });

/** Group commit: one write + fdatasync in flight; lines queued meanwhile go in the next batch. */
function groupCommitter(path: string): (line: string) => Promise<void> {
  const fd = openSync(path, 'a');
  const writeAsync = promisify(write);
  const syncAsync = promisify(fdatasync);
  let queued: { line: string; done: () => void; fail: (err: Error) => void }[] = [];
  let flushing = false;
  const flush = async () => {
    flushing = true;
    while (queued.length > 0) {
      const batch = queued;
      queued = [];
      try {
        await writeAsync(fd, batch.map((b) => `${b.line}\n`).join(''));
        await syncAsync(fd);
        for (const b of batch) b.done();
      } catch (err) {
        for (const b of batch) b.fail(err as Error);
      }
    }
    flushing = false;
  };
  return (line) =>
    new Promise<void>((done, fail) => {
      queued.push({ line, done, fail });
      if (!flushing) void flush();
    });
}
const commit = args.durableFile ? groupCommitter(args.durableFile) : null;

// With a health fixture, /health is the ceiling of the service's own /health: the same bytes, from memory.
const healthBytes = fixtures.get('health');
app.get('/health', async (_request, reply) => {
  if (healthBytes) return reply.type('application/json; charset=utf-8').send(healthBytes);
  return { status: 'healthy' };
});

app.post('/api/tasks/trigger', async (request, reply) => {
  const body = (request.body ?? {}) as { type?: string; payload?: { idempotencyKey?: string } };
  const taskId = randomUUID();
  const answer = {
    status: 'queued',
    taskId,
    runId: body.payload?.idempotencyKey ?? taskId,
    type: body.type ?? null,
    createdAt: new Date().toISOString(),
  };
  if (commit) await commit(JSON.stringify(answer));
  reply.code(202);
  return answer;
});

app.get('/fixture/:name', async (request, reply) => {
  const { name } = request.params as { name: string };
  const bytes = fixtures.get(name);
  if (!bytes) return reply.code(404).send({ error: 'no such fixture' });
  return reply.type('application/json; charset=utf-8').send(bytes);
});

await app.listen({ host: '127.0.0.1', port: args.port ?? 0 });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
const url = `http://127.0.0.1:${port}`;
console.log(JSON.stringify({ msg: 'bare fastify listening', url }));
process.send?.({ type: 'ready', url });
