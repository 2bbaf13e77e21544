import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of the fake provider; `text` answers a completion, the rest shape a failure. */
export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  /** A raw body instead of a completion (a malformed answer). */
  raw?: string;
  text?: string;
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** Wait this long before answering (a timeout when longer than the client's). */
  delayMs?: number;
}

export interface FakeRequest {
  authorization: string | undefined;
  body: { model: string; messages: Array<{ role: string; content: string }>; max_tokens?: number };
}

export interface FakeOpenAi {
  /** The base URL the client is pointed at (OPENAI_BASE_URL). */
  baseUrl: string;
  received: FakeRequest[];
  /** Replies used in order, one per request; when they run out, `fallback` answers. */
  script(...replies: FakeReply[]): void;
  /** Answers requests once the script is used up (default: a fixed completion). */
  fallback: (request: FakeRequest) => FakeReply;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible chat-completions server on 127.0.0.1 for tests: it records every request
 * (headers and body) and answers from a script, so a test can say "429, then success" or "500
 * forever" and count what reached the provider.
 */
export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const received: FakeRequest[] = [];
  let queue: FakeReply[] = [];
  const fake: FakeOpenAi = {
    baseUrl: '',
    received,
    script: (...replies) => {
      queue = [...replies];
    },
    fallback: () => ({ text: 'A fixed answer.' }),
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const request: FakeRequest = { authorization: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as FakeRequest['body'] };
      received.push(request);
      const reply = queue.shift() ?? fake.fallback(request);
      const answer = () => {
        if (res.destroyed) return;
        const headers = { 'content-type': 'application/json', ...reply.headers };
        if (reply.raw !== undefined) return void res.writeHead(reply.status ?? 200, headers).end(reply.raw);
        if (reply.status !== undefined && reply.status >= 400) {
          return void res.writeHead(reply.status, headers).end(JSON.stringify({ error: { message: `scripted ${reply.status}`, type: 'server_error' } }));
        }
        const usage = reply.usage === undefined ? { prompt_tokens: 120, completion_tokens: 30 } : reply.usage;
        res.writeHead(200, headers).end(
          JSON.stringify({
            id: `chatcmpl-${received.length}`,
            object: 'chat.completion',
            created: 1_700_000_000,
            model: request.body.model,
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: reply.text ?? '' } }],
            ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
          }),
        );
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
