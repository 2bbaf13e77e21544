/**
 * The `data` of an `event: run` on the event streams (docs/events.md). Kept apart from the frame
 * encoders, which need Node's Buffer, so that browser code (the operator console) and the client
 * library can take the type from here.
 */
export interface RunEventData {
  runId: string;
  taskId: string;
  type: string;
  /** The run's status right after the write that recorded the event. */
  status: string;
  seq: number;
  at: string;
  kind: string;
  name: string;
  detail: string | null;
}

/** The `data` of `event: end`: the run's terminal status. */
export interface RunEndData {
  runId: string;
  status: string;
}
