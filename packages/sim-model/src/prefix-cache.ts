/**
 * Prompt prefix cache: remembers every message prefix it has seen (keyed by the tools digest and the
 * prefix's rolling hash) with the prompt tokens up to it. A request's cached tokens are those of the
 * longest prefix seen before, as providers' automatic prompt caching reports them.
 */
export class PrefixCache {
  private readonly entries = new Map<string, number>();

  constructor(private readonly limit = 200_000) {}

  /** Tokens of the longest known prefix, then remember all of this request's prefixes. */
  lookupAndStore(namespace: string, hashes: readonly string[], cumulativeTokens: readonly number[]): number {
    let cached = 0;
    for (let index = hashes.length - 1; index >= 0; index -= 1) {
      const known = this.entries.get(`${namespace}:${hashes[index]}`);
      if (known !== undefined) {
        cached = known;
        break;
      }
    }
    for (const [index, hash] of hashes.entries()) {
      const key = `${namespace}:${hash}`;
      if (this.entries.has(key)) this.entries.delete(key);
      this.entries.set(key, cumulativeTokens[index] ?? 0);
    }
    // Evict the least recently stored entries (Map keeps insertion order).
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.limit) break;
      this.entries.delete(key);
    }
    return cached;
  }

  /** Forget everything. */
  clear(): void {
    this.entries.clear();
  }
}
