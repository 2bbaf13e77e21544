import { StringDecoder } from 'node:string_decoder';
import { utf8Prefix } from './bound-line.js';

/** A complete line, and how many bytes of it were skipped past the unfinished-line bound. */
export type LineSink = (text: string, skippedBytes: number) => void;

/**
 * Splits a byte stream (a worker's stderr) into lines. UTF-8 characters split across chunks are
 * decoded whole; `\r\n` ends a line like `\n`. An unfinished line is held up to `maxPendingBytes`:
 * past that, its start is kept and the rest up to the next line break is only counted, so a
 * worker printing without line breaks cannot grow the service's memory.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private pendingBytes = 0;
  /** Bytes skipped of the line being held, or null while it is within the bound. */
  private skipped: number | null = null;

  constructor(
    private readonly maxPendingBytes: number,
    private readonly sink: LineSink,
  ) {}

  write(chunk: Buffer | string): void {
    let text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    while (text.length > 0) {
      const end = text.indexOf('\n');
      const piece = end < 0 ? text : text.slice(0, end);
      this.hold(piece);
      if (end < 0) return;
      this.emit();
      text = text.slice(end + 1);
    }
  }

  /** The stream ended: an unfinished last line is still a line. */
  end(): void {
    this.hold(this.decoder.end());
    if (this.pending.length > 0 || this.skipped !== null) this.emit();
  }

  private hold(piece: string): void {
    if (piece.length === 0) return;
    const bytes = Buffer.byteLength(piece, 'utf8');
    if (this.skipped !== null) {
      this.skipped += bytes;
      return;
    }
    this.pending += piece;
    this.pendingBytes += bytes;
    if (this.pendingBytes > this.maxPendingBytes) {
      const kept = utf8Prefix(this.pending, this.maxPendingBytes);
      this.skipped = this.pendingBytes - Buffer.byteLength(kept, 'utf8');
      this.pending = kept;
      this.pendingBytes = Buffer.byteLength(kept, 'utf8');
    }
  }

  private emit(): void {
    const line = this.pending.endsWith('\r') ? this.pending.slice(0, -1) : this.pending;
    const skipped = this.skipped ?? 0;
    this.pending = '';
    this.pendingBytes = 0;
    this.skipped = null;
    this.sink(line, skipped);
  }
}
