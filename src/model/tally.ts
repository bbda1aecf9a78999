// Counts per key that forget a key at zero: what each account holds open at once in one process
// (uploads, event streams, transfers), so the maps stay as small as what is open.

export class Tally<K> {
  private readonly counts = new Map<K, number>();

  of(key: K): number {
    return this.counts.get(key) ?? 0;
  }

  add(key: K): void {
    this.counts.set(key, this.of(key) + 1);
  }

  /** One fewer for `key`; returns how many are left (0: the key is forgotten). */
  remove(key: K): number {
    const left = this.of(key) - 1;
    if (left > 0) this.counts.set(key, left);
    else this.counts.delete(key);
    return Math.max(0, left);
  }
}
