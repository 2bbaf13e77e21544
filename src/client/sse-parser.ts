/** One server-sent event as it arrived (docs/events.md). Node-free: the console bundles it too. */
export interface StreamEvent {
  event: string;
  id: string | null;
  data: string;
}

/**
 * Splits a text/event-stream into events, chunk by chunk (the WHATWG format: `field: value`
 * lines, a blank line ends an event, `:` lines are comments such as the keepalive). What is
 * unfinished at the end of a chunk waits for the next one.
 */
export class EventStreamParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | null = null;

  constructor(private readonly onEvent: (event: StreamEvent) => void) {}

  push(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      // A lone \r at the very end may be the first half of \r\n: wait for the next chunk.
      if (this.buffer[newline] === '\r' && newline === this.buffer.length - 1) return;
      const line = this.buffer.slice(0, newline);
      const width = this.buffer.startsWith('\r\n', newline) ? 2 : 1;
      this.buffer = this.buffer.slice(newline + width);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0 || this.event !== '') this.onEvent({ event: this.event || 'message', id: this.id, data: this.data.join('\n') });
      this.event = '';
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.id = value;
  }
}
