/**
 * A map with a size bound (least recently used entries leave first) and an optional time to
 * live, for caches keyed by text a model or a stranger chooses: however many keys come, the
 * memory stays bounded.
 */
/** A time to live comes with the clock it is measured on: no cache picks its own. */
export type BoundedCacheOptions = { maxEntries: number; ttlMs?: undefined; now?: undefined } | { maxEntries: number; ttlMs: number; now: () => number };

export class BoundedCache<K, V> {
  private readonly entries = new Map<K, { value: V; at: number }>();

  constructor(private readonly options: BoundedCacheOptions) {
    if (!Number.isInteger(options.maxEntries) || options.maxEntries < 1) throw new RangeError("maxEntries must be an integer >= 1");
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.options.ttlMs !== undefined && this.options.now() - entry.at >= this.options.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    // Map keeps insertion order: re-inserting marks the entry most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    // Without a time to live no entry's age is ever asked, so none is read from a clock.
    this.entries.set(key, { value, at: this.options.now?.() ?? 0 });
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
    }
  }
}
