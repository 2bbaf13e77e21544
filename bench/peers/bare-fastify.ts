/**
 * Peer process: a bare Fastify server, the ceiling for the service's HTTP figures. No auth,
 * no validation beyond JSON parsing, no store, no logger. Self-contained: it is transpiled and
 * run as plain `node` (see bench/lib/peer-process.ts).
 *
 *   POST /api/tasks/trigger  -> 202 with the trigger response shape, nothing stored
 *   GET  /health             -> 200 {status: 'healthy'}
 *   GET  /fixture/:name      -> bytes loaded at start from <fixtureDir>/<name>.json (a perfect cache)
 */
import Fastify from 'fastify';
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface Args {
  port?: number;
  fixtureDir?: string;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;

const fixtures = new Map<string, Buffer>();
if (args.fixtureDir) {
  for (const name of readdirSync(args.fixtureDir)) {
    if (name.endsWith('.json')) fixtures.set(name.slice(0, -5), readFileSync(join(args.fixtureDir, name)));
  }
}

const app = Fastify({ logger: false });

app.get('/health', async () => ({ status: 'healthy' }));

app.post('/api/tasks/trigger', async (request, reply) => {
  const body = (request.body ?? {}) as { type?: string; payload?: { idempotencyKey?: string } };
  const taskId = randomUUID();
  reply.code(202);
  return {
    status: 'queued',
    taskId,
    runId: body.payload?.idempotencyKey ?? taskId,
    type: body.type ?? null,
    createdAt: new Date().toISOString(),
  };
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
