import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One span as OTLP/HTTP JSON carries it, with its resource's service name. */
export interface ReceivedSpan {
  serviceName: string | null;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  attributes: Record<string, string | number | boolean>;
}

export interface OtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Paths the exporter posted to (should be /v1/traces). */
  paths: string[];
  /** Every span received so far (bodies are parsed when this is read, not while a load runs). */
  readonly spans: ReceivedSpan[];
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: KeyValue[] }> }>;
  }>;
}

function valueOf(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  return value.doubleValue ?? '';
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

function spansOf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  const request = JSON.parse(body.toString('utf8')) as ExportRequest;
  for (const resourceSpans of request.resourceSpans ?? []) {
    const serviceName = attributesOf(resourceSpans.resource?.attributes)['service.name'];
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        spans.push({
          serviceName: typeof serviceName === 'string' ? serviceName : null,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ? span.parentSpanId : null,
          name: span.name,
          attributes: attributesOf(span.attributes),
        });
      }
    }
  }
  return spans;
}

/**
 * A collector stand-in on 127.0.0.1: accepts OTLP/HTTP JSON trace exports and keeps their spans.
 * It only stores each body while exports arrive (a benchmark's load generator shares its thread).
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const paths: string[] = [];
  const parsed: ReceivedSpan[] = [];
  const pending: Buffer[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.push(req.url ?? '');
      const body = Buffer.concat(chunks);
      pending.push(req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths,
    get spans() {
      for (const body of pending.splice(0)) parsed.push(...spansOf(body));
      return parsed;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
