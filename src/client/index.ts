/** The service's client library: used by the `orch` command line (src/cli/) and the `/orch` chat bridge (bridge/). */
export { createOrchClient, type OrchClient, type RunRecordView, type RunStreamEvent, type LogStreamLine, type TriggerAnswer, type RunListQuery, type FlowRecordView, type FlowAdmission } from './api.js';
export { OrchApiError, OrchNetworkError, describeClientError } from './errors.js';
export { EventStreamParser, followEventStream, type StreamEvent } from './sse.js';
export { waitAfterRateLimit } from './flow-control.js';
export type { ClientOptions } from './http.js';
