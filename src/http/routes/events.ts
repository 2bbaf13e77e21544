import type { ServerResponse } from 'node:http';
import Type, { type Static } from 'typebox';
import { RUN_STATUSES } from '../../domain/run-record.js';
import type { PreparedStream, RunEventHub } from '../../events/run-event-hub.js';
import type { StreamSink } from '../../events/run-event-stream.js';
import { routeFamily, viewerRead, type ProtectedContext, type RouteReply, type RouteSpec } from '../route-spec.js';

const EVENT_STREAM = 'text/event-stream; charset=utf-8';

const RunIdParams = Type.Object({ runId: Type.String({ minLength: 1, maxLength: 400 }) });
/**
 * The one credential a query string may carry: a scoped token, because EventSource cannot set an
 * Authorization header. A full API key never goes here (src/http/auth.ts refuses it).
 */
const AccessToken = Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'a scoped token (POST /api/tokens), never an API key' }));
export const TokenQuery = Type.Object({ access_token: AccessToken }, { additionalProperties: false });
const EventsQuery = Type.Object(
  {
    access_token: AccessToken,
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'only runs of this task type (internal types too when named)' })),
    status: Type.Optional(Type.Union(RUN_STATUSES.map((s) => Type.Literal(s)), { description: 'only events whose write left the run in this status' })),
  },
  { additionalProperties: false },
);

export const StreamDescription = [
  'A text/event-stream. Each run event is `event: run` with `id:` (send the last one back as the',
  'Last-Event-ID header to resume with no gap and no repeat, also after a restart) and `data:` a JSON',
  'object {runId, taskId, type, status, seq, at, kind, name, detail}, status being the run’s status',
  'right after the write that recorded the event. `: keepalive` comments keep idle streams open; a',
  'client that does not read is sent `event: error` (code slow_consumer) and closed. See docs/events.md.',
].join(' ');

export const StreamSchema = Type.String({ description: 'server-sent events, one frame per event' });

/** The response as the event stream's sink: what it holds unsent is the response's and its socket's buffer. */
function responseSink(response: ServerResponse): StreamSink {
  return {
    write: (chunk) => {
      response.write(chunk);
    },
    batch: (writes) => {
      response.cork();
      try {
        writes();
      } finally {
        response.uncork();
      }
    },
    flush: () => {
      if (response.writableCorked === 0) return;
      response.uncork();
      response.cork();
    },
    get bufferedBytes() {
      return response.writableLength;
    },
    drained: () =>
      new Promise<void>((resolve) => {
        const socket = response.socket;
        if (socket === null || response.destroyed) {
          resolve();
          return;
        }
        if (socket.writableLength === 0) {
          // Nothing waits on the socket itself: give the event loop a turn, then look again.
          setImmediate(resolve);
          return;
        }
        const done = () => {
          socket.off('drain', done);
          response.off('close', done);
          resolve();
        };
        socket.on('drain', done);
        response.on('close', done);
      }),
    end: (options = {}) => {
      response.end();
      if (options.dropAfterMs === undefined || response.writableFinished) return;
      const drop = setTimeout(() => response.destroy(), options.dropAfterMs);
      drop.unref();
      response.once('finish', () => clearTimeout(drop));
      response.once('close', () => clearTimeout(drop));
    },
    onClose: (listener) => {
      response.on('close', listener);
    },
  };
}

/** A prepared stream as the route's reply: the HTTP layer hands it the response. */
export function streamReply(prepared: PreparedStream): RouteReply {
  return {
    // No proxy buffering; and the connection closes with the stream (a client reconnects anew).
    headers: { 'X-Accel-Buffering': 'no', Connection: 'close' },
    takeover: { contentType: EVENT_STREAM, start: (response) => prepared.start(responseSink(response)), abandon: () => prepared.release() },
  };
}

/** The Last-Event-ID header a client resumes with. */
export function lastEventId(ctx: ProtectedContext): string | undefined {
  const header = ctx.request.headers['last-event-id'];
  return Array.isArray(header) ? header[0] : header;
}

/** Live run events as server-sent events: one run, or every run (docs/events.md). */
export function eventRoutes(deps: { events: RunEventHub }): RouteSpec[] {
  const { events } = deps;
  const reads = routeFamily({ tags: ['tasks'], access: viewerRead });
  return [
    reads.get('/api/tasks/runs/:runId/events', {
      operationId: 'streamRunEvents',
      summary: 'One run’s events as server-sent events: its stored events, then live ones, then `event: end`',
      description: `${StreamDescription} The run's stored events come first, then live ones and its workers' log lines as \`event: log\` (live only, no id); after its terminal event the stream sends \`event: end\` and closes.`,
      produces: 'text/event-stream',
      schema: { params: RunIdParams, querystring: TokenQuery, response: { 200: StreamSchema } },
      tokenInQuery: true,
      tokenReads: ({ params }) => ({ kind: 'run', runId: params.runId ?? '' }),
      handler: async (ctx: ProtectedContext<unknown, Static<typeof RunIdParams>>) =>
        streamReply(await events.prepareRunStream(ctx.params.runId, { key: ctx.identity.actor, lastEventId: lastEventId(ctx) })),
    }),
    reads.get('/api/events', {
      operationId: 'streamEvents',
      summary: 'Every run’s events as server-sent events, from now on (or from Last-Event-ID)',
      description: `${StreamDescription} Internal task types are left out unless \`type\` names one.`,
      produces: 'text/event-stream',
      schema: { querystring: EventsQuery, response: { 200: StreamSchema } },
      tokenInQuery: true,
      tokenReads: () => ({ kind: 'feed' }),
      handler: async (ctx: ProtectedContext<Static<typeof EventsQuery>>) =>
        streamReply(
          await events.prepareFeedStream({ type: ctx.query.type, status: ctx.query.status }, { key: ctx.identity.actor, lastEventId: lastEventId(ctx) }),
        ),
    }),
  ];
}
