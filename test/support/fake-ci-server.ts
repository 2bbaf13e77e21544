import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeCiServer {
  url: string;
  /** Every request seen: path with query and headers. */
  requests: Array<{ url: string; headers: IncomingHttpHeaders }>;
  /** What the next requests answer. */
  answer: { status: number; body: unknown; delayMs?: number };
  close(): Promise<void>;
}

/** A local stand-in for a code host's CI runs API, on loopback, answering what the test sets. */
export async function startFakeCiServer(answer: FakeCiServer['answer']): Promise<FakeCiServer> {
  const requests: FakeCiServer['requests'] = [];
  const state = { answer };
  const server: Server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    const { status, body, delayMs } = state.answer;
    const send = () => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (delayMs) setTimeout(send, delayMs).unref();
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get answer() {
      return state.answer;
    },
    set answer(next) {
      state.answer = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A CI runs API answer with one run. */
export function ciRuns(run: { name: string; status: string; conclusion: string | null; html_url: string }) {
  return { total_count: 1, workflow_runs: [{ ...run, head_branch: 'main', updated_at: '2026-03-01T11:59:00Z' }] };
}
