/**
 * The fan-out ceiling: a bare node:http server that holds text/event-stream clients and, when
 * told, broadcasts run-event frames to all of them at a fixed rate (no store, no feed, no
 * filter). On each turn of its timer the frames due by then are encoded once, joined, and
 * written to every client in one write (one system call per client per turn, as a careful
 * broadcaster does). Frames look like the service's (`id`, `event: run`, JSON data with runId,
 * seq, at, padded to the service's average frame size); `at` is the moment the frame is made,
 * just before the writes. Runs are named `<prefix><n>`.
 * IPC: {type: 'ready', url} once listening; on {type: 'broadcast', prefix, runs, eventsPerRun,
 * eventsPerSec, frameBytes} it answers {type: 'broadcast-done', sent}; on {type: 'clients'} it
 * answers {type: 'clients', count}.
 */
import http from 'node:http';

const clients = new Set<http.ServerResponse>();

const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
  res.flushHeaders();
  clients.add(res);
  req.on('close', () => clients.delete(res));
});

function frame(id: number, runId: string, seq: number, frameBytes: number): Buffer {
  const data = { runId, taskId: runId, type: 'bench', status: 'running', seq, at: new Date().toISOString(), kind: 'execution', name: 'step', detail: '' };
  const bare = `id: ${id}\nevent: run\ndata: ${JSON.stringify(data)}\n\n`;
  const pad = Math.max(0, frameBytes - Buffer.byteLength(bare));
  return Buffer.from(`id: ${id}\nevent: run\ndata: ${JSON.stringify({ ...data, detail: 'x'.repeat(pad) })}\n\n`);
}

let nextId = 1;

async function broadcast(prefix: string, runs: number, eventsPerRun: number, eventsPerSec: number, frameBytes: number): Promise<number> {
  const total = runs * eventsPerRun;
  const started = performance.now();
  let sent = 0;
  while (sent < total) {
    // Events due by now on the fixed schedule, joined and written to every client at once.
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * eventsPerSec) + 1);
    const frames: Buffer[] = [];
    for (; sent < due; sent++) {
      const run = Math.floor(sent / eventsPerRun);
      frames.push(frame(nextId++, `${prefix}${run}`, (sent % eventsPerRun) + 1, frameBytes));
    }
    if (frames.length > 0) {
      const buffer = frames.length === 1 ? frames[0]! : Buffer.concat(frames);
      for (const client of clients) client.write(buffer);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, (sent / eventsPerSec) * 1000 - (performance.now() - started))));
  }
  return sent;
}

process.on('message', (raw) => {
  const message = raw as { type: string; prefix?: string; runs?: number; eventsPerRun?: number; eventsPerSec?: number; frameBytes?: number };
  if (message.type === 'clients') process.send!({ type: 'clients', count: clients.size });
  if (message.type === 'broadcast') {
    void broadcast(message.prefix!, message.runs!, message.eventsPerRun!, message.eventsPerSec!, message.frameBytes!).then((sent) =>
      process.send!({ type: 'broadcast-done', sent }),
    );
  }
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.send!({ type: 'ready', url: `http://127.0.0.1:${address.port}` });
});
