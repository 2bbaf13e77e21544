/** The service's own text/event-stream parser, shared with the `orch` client (node-free). */
export { EventStreamParser, type StreamEvent } from '../../../src/client/sse-parser.js';
