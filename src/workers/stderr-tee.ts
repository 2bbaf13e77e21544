import type { Readable } from 'node:stream';

/**
 * A worker's standard error, passed on to the service's own standard error as it arrives (the
 * worker protocol: agent stderr reaches the orchestrator log, as when it was inherited) and
 * handed to `onChunk` (the attempt's run log). A failing `onChunk` never stops the pass-through.
 */
export function teeStderr(stream: Readable, onChunk: (chunk: Buffer) => void, out: NodeJS.WritableStream = process.stderr): void {
  // A read error only ends the copy; the worker's exit is still reported by its process.
  stream.on('error', () => undefined);
  stream.on('data', (chunk: Buffer) => {
    out.write(chunk);
    try {
      onChunk(chunk);
    } catch {
      // the run log drops what it cannot keep; the service's own stderr already has the bytes
    }
  });
}
