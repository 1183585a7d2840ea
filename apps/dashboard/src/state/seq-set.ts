/** Seqs kept as one bit each up to this; any beyond it (never seen in a thread's log) in a plain set. */
const BITS = 1 << 24;

/**
 * The persisted event seqs a thread state has applied. A batch of streamed events copies it once: a
 * copy of a bit per seq of the log (1.2 kB for 10,000 events), not of a hash set of every seq applied.
 */
export class SeqSet implements Iterable<number> {
  private constructor(
    private bits: Uint8Array,
    private readonly beyond: Set<number>,
  ) {}

  static empty(): SeqSet {
    return new SeqSet(new Uint8Array(0), new Set());
  }

  has(seq: number): boolean {
    if (!Number.isInteger(seq) || seq < 0 || seq >= BITS) return this.beyond.has(seq);
    return ((this.bits[seq >> 3] ?? 0) & (1 << (seq & 7))) !== 0;
  }

  /** A copy to add to (this one never changes once a state holds it). */
  copy(): SeqSet {
    return new SeqSet(this.bits.slice(), new Set(this.beyond));
  }

  /** Adds a seq; only on a copy no state holds yet. */
  add(seq: number): void {
    if (!Number.isInteger(seq) || seq < 0 || seq >= BITS) {
      this.beyond.add(seq);
      return;
    }
    const byte = seq >> 3;
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.bits.length * 2, 64));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[byte] = (this.bits[byte] ?? 0) | (1 << (seq & 7));
  }

  /** In ascending order. */
  *[Symbol.iterator](): Iterator<number> {
    const beyond = [...this.beyond].sort((left, right) => left - right);
    yield* beyond.filter((seq) => seq < 0);
    for (let byte = 0; byte < this.bits.length; byte++) {
      const value = this.bits[byte] ?? 0;
      if (value === 0) continue;
      for (let bit = 0; bit < 8; bit++) if (value & (1 << bit)) yield byte * 8 + bit;
    }
    yield* beyond.filter((seq) => seq >= 0);
  }
}
