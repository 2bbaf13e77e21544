import http from 'node:http';

/** One server-sent frame as a client sees it (a comment frame has only `comment`). */
export interface SseFrame {
  event: string;
  id: string | null;
  data: string;
  comment?: string;
}

export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Every frame received so far, comments included. */
  frames: SseFrame[];
  /** The `event: run` frames with their data parsed. */
  runEvents(): Array<{ id: string; data: Record<string, unknown> }>;
  /** The last `id:` received (what a client sends back as Last-Event-ID). */
  lastId(): string | null;
  /** Resolves with the frames once one satisfies `match` (rejects after `timeoutMs`). */
  waitFor(match: (frame: SseFrame, all: SseFrame[]) => boolean, timeoutMs?: number, what?: string): Promise<SseFrame>;
  /** Resolves when the server ended the response. */
  ended: Promise<void>;
  /** The client leaves. */
  close(): void;
  /** The error body of a refused request (non-200). */
  body: string;
}

/** Parses one frame's text (the lines between two blank lines). */
export function parseSseFrame(block: string): SseFrame {
  const frame: SseFrame = { event: 'message', id: null, data: '' };
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      frame.comment = line.slice(1).trim();
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') frame.event = value;
    else if (field === 'id') frame.id = value;
    else if (field === 'data') data.push(value);
    else if (field === 'retry') frame.event = 'retry';
  }
  frame.data = data.join('\n');
  return frame;
}

/** Splits text/event-stream text into its complete frames and the incomplete rest. */
export function splitSseFrames(text: string): { frames: SseFrame[]; rest: string } {
  const frames: SseFrame[] = [];
  let rest = text;
  let at: number;
  while ((at = rest.indexOf('\n\n')) !== -1) {
    frames.push(parseSseFrame(rest.slice(0, at)));
    rest = rest.slice(at + 2);
  }
  return { frames, rest };
}

/**
 * A small text/event-stream client over node:http (fetch hides the frames' timing): parses
 * frames as they arrive, per the SSE format (fields `event`, `id`, `data`, comment lines).
 */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const frames: SseFrame[] = [];
      const waiters: Array<() => void> = [];
      let buffer = '';
      let body = '';
      let endResolve: () => void = () => undefined;
      const ended = new Promise<void>((r) => (endResolve = r));
      res.setEncoding('utf8');
      const parse = () => {
        const split = splitSseFrames(buffer);
        buffer = split.rest;
        frames.push(...split.frames);
        for (const wake of waiters.splice(0)) wake();
      };
      res.on('data', (chunk: string) => {
        if (res.statusCode !== 200) {
          body += chunk;
          return;
        }
        buffer += chunk;
        parse();
      });
      let done = false;
      const finish = () => {
        done = true;
        endResolve();
        for (const wake of waiters.splice(0)) wake();
      };
      res.on('end', finish);
      res.on('error', finish);
      res.on('close', finish);
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        frames,
        get body() {
          return body;
        },
        runEvents: () => frames.filter((f) => f.event === 'run').map((f) => ({ id: f.id!, data: JSON.parse(f.data) as Record<string, unknown> })),
        lastId: () => [...frames].reverse().find((f) => f.id !== null)?.id ?? null,
        waitFor: (match, timeoutMs = 15_000, what = 'a frame') =>
          new Promise((resolveFrame, rejectFrame) => {
            const deadline = setTimeout(
              () => rejectFrame(new Error(`timed out waiting for ${what}; got ${JSON.stringify(frames.slice(-5))}`)),
              timeoutMs,
            );
            const check = () => {
              const found = frames.find((f) => match(f, frames));
              if (found) {
                clearTimeout(deadline);
                resolveFrame(found);
              } else if (done) {
                clearTimeout(deadline);
                rejectFrame(new Error(`stream ended before ${what}; got ${JSON.stringify(frames.slice(-5))}`));
              } else {
                waiters.push(check);
              }
            };
            check();
          }),
        ended,
        close: () => request.destroy(),
      };
      if (res.statusCode !== 200) {
        res.on('end', () => resolve(client));
        return;
      }
      resolve(client);
    });
    request.on('error', reject);
  });
}
