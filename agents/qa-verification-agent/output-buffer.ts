/**
 * Collects a process's stdout and stderr in arrival order, keeping only the last `capBytes`:
 * runners print their summary last, so the end of the output is the part worth keeping.
 */
export class OutputBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly capBytes: number) {}

  append(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.capBytes && this.chunks.length > 0) {
      const excess = this.size - this.capBytes;
      const first = this.chunks[0]!;
      this.truncated = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** The last `count` lines of a text, without the trailing blank ones. */
export function tailLines(text: string, count: number): string {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\s+$/, '').split('\n');
  return lines.slice(-count).join('\n');
}
