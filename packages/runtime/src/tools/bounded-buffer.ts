/** Keeps the first and last `keep` characters of a growing stream of text, and its total length. */
export class BoundedBuffer {
  private head = "";
  private tail = "";
  private total = 0;

  constructor(private readonly keep: number) {}

  /** Append a chunk; memory stays bounded by twice `keep` whatever the stream's size. */
  append(chunk: string): void {
    this.total += chunk.length;
    if (this.head.length < this.keep) {
      const room = this.keep - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (chunk.length > 0) this.tail = (this.tail + chunk).slice(-this.keep);
  }

  /** Everything kept, with a marker where the middle was dropped. */
  text(): string {
    const dropped = this.total - this.head.length - this.tail.length;
    if (dropped <= 0) return this.head + this.tail;
    return `${this.head}\n\n[output cut: ${dropped} of ${this.total} characters omitted]\n\n${this.tail}`;
  }
}
