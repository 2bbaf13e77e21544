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
 *
 * With `pg` set it is the PostgreSQL admission ceiling: each trigger's record is a row of one
 * table, inserted with the rows that arrive meanwhile as one multi-row INSERT committed on one
 * connection (group commit; one commit in flight), answered once its COMMIT returned (durable
 * with the server's synchronous_commit on).
 *
 * `fail500Every` (deliberately broken bench runs only) answers 500 to every n-th trigger.
 */
import Fastify from 'fastify';
import { randomUUID } from 'node:crypto';
import { fdatasync, openSync, readFileSync, readdirSync, write } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import pg from 'pg';

interface Args {
  port?: number;
  fixtureDir?: string;
  durableFile?: string;
  pg?: { url: string; table: string };
  fail500Every?: number;
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
  return batcher(async (lines) => {
    await writeAsync(fd, lines.map((line) => `${line}\n`).join(''));
    await syncAsync(fd);
  });
}

/** Group commit into PostgreSQL: the queued records as one multi-row INSERT, one COMMIT in flight. */
async function pgCommitter(options: { url: string; table: string }): Promise<(line: string) => Promise<void>> {
  const client = new pg.Client({ connectionString: options.url });
  client.on('error', (err) => console.error(`pg ceiling connection: ${err.message}`));
  await client.connect();
  const table = `"${options.table.replace(/"/g, '')}"`;
  await client.query(`CREATE TABLE IF NOT EXISTS ${table} (key text PRIMARY KEY, record jsonb NOT NULL)`);
  return batcher(async (lines) => {
    const values: string[] = [];
    const params: string[] = [];
    for (const line of lines) {
      const key = (JSON.parse(line) as { runId: string }).runId;
      params.push(key, line);
      values.push(`($${params.length - 1}, $${params.length}::jsonb)`);
    }
    // An autocommit statement is its own transaction: the COMMIT (WAL flush) precedes the reply.
    await client.query(`INSERT INTO ${table} (key, record) VALUES ${values.join(',')} ON CONFLICT (key) DO NOTHING`, params);
  });
}

/** Queues lines while one `commit` of an earlier batch is in flight; each caller resolves after its batch committed. */
function batcher(commit: (lines: string[]) => Promise<void>): (line: string) => Promise<void> {
  let queued: { line: string; done: () => void; fail: (err: Error) => void }[] = [];
  let flushing = false;
  const flush = async () => {
    flushing = true;
    while (queued.length > 0) {
      const batch = queued;
      queued = [];
      try {
        await commit(batch.map((b) => b.line));
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
const commit = args.pg ? await pgCommitter(args.pg) : args.durableFile ? groupCommitter(args.durableFile) : null;
let triggers = 0;

// With a health fixture, /health is the ceiling of the service's own /health: the same bytes, from memory.
const healthBytes = fixtures.get('health');
app.get('/health', async (_request, reply) => {
  if (healthBytes) return reply.type('application/json; charset=utf-8').send(healthBytes);
  return { status: 'healthy' };
});

app.post('/api/tasks/trigger', async (request, reply) => {
  if (args.fail500Every && ++triggers % args.fail500Every === 0) return reply.code(500).send({ error: 'injected fault' });
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
