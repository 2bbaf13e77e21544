import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

/** One span as an OTLP/HTTP export carries it (JSON or protobuf), with its resource's service name. */
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
  /** The content type of each export, in order (`application/x-protobuf` or `application/json`). */
  contentTypes: string[];
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

/**
 * The part of the OTLP trace schema (opentelemetry-proto, trace/v1 and common/v1) the tests read;
 * protobuf decoding skips the fields it does not name. Ids decode as bytes and are turned into
 * hex, as OTLP JSON writes them.
 */
const OTLP_TRACE_SUBSET = `
syntax = "proto3";
message ExportTraceServiceRequest { repeated ResourceSpans resourceSpans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scopeSpans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { repeated Span spans = 2; }
message Span { bytes traceId = 1; bytes spanId = 2; bytes parentSpanId = 4; string name = 5; repeated KeyValue attributes = 9; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue { oneof value { string stringValue = 1; bool boolValue = 2; int64 intValue = 3; double doubleValue = 4; } }
`;
const ExportTraceServiceRequest = protobuf.parse(OTLP_TRACE_SUBSET).root.lookupType('ExportTraceServiceRequest');

interface ExportBody {
  contentType: string;
  body: Buffer;
}

function requestOf({ contentType, body }: ExportBody): ExportRequest {
  if (!contentType.startsWith('application/x-protobuf')) return JSON.parse(body.toString('utf8')) as ExportRequest;
  const decoded = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { bytes: String, longs: String }) as ExportRequest;
  // protobufjs renders bytes as base64 here; OTLP JSON (and the tests) use hex ids.
  const hex = (id: string | undefined) => (id ? Buffer.from(id, 'base64').toString('hex') : undefined);
  for (const resourceSpans of decoded.resourceSpans ?? []) {
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        span.traceId = hex(span.traceId) ?? '';
        span.spanId = hex(span.spanId) ?? '';
        const parent = hex(span.parentSpanId);
        if (parent === undefined) delete span.parentSpanId;
        else span.parentSpanId = parent;
      }
    }
  }
  return decoded;
}

function spansOf(body: ExportBody): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  const request = requestOf(body);
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
 * A collector stand-in on 127.0.0.1: accepts OTLP/HTTP trace exports, protobuf or JSON, and keeps
 * their spans, answering each in its own encoding (an empty export response).
 * It only stores each body while exports arrive (a benchmark's load generator shares its thread).
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const paths: string[] = [];
  const contentTypes: string[] = [];
  const parsed: ReceivedSpan[] = [];
  const pending: ExportBody[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.push(req.url ?? '');
      const contentType = req.headers['content-type'] ?? '';
      contentTypes.push(contentType);
      const body = Buffer.concat(chunks);
      pending.push({ contentType, body: req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body });
      // An empty ExportTraceServiceResponse: zero bytes in protobuf, `{}` in JSON.
      if (contentType.startsWith('application/x-protobuf')) res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths,
    contentTypes,
    get spans() {
      for (const body of pending.splice(0)) parsed.push(...spansOf(body));
      return parsed;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
