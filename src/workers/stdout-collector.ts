import type { Readable } from 'node:stream';

export interface StdoutCollector {
  text(): string;
  readonly overflowed: boolean;
}

/**
 * Collects a worker's stdout up to `maxBytes`. Past the cap the data is dropped and
 * `onOverflow` fires once, so a runaway worker cannot grow the orchestrator's memory.
 */
export function collectStdout(stream: Readable, maxBytes: number, onOverflow: () => void): StdoutCollector {
  const chunks: Buffer[] = [];
  let size = 0;
  let overflowed = false;
  stream.on('data', (chunk: Buffer) => {
    if (overflowed) return;
    size += chunk.length;
    if (size > maxBytes) {
      overflowed = true;
      chunks.length = 0;
      onOverflow();
      return;
    }
    chunks.push(chunk);
  });
  return {
    text: () => Buffer.concat(chunks).toString('utf8'),
    get overflowed() {
      return overflowed;
    },
  };
}
