/**
 * An in-process LRU of small blobs, bounded in bytes. Blobs are content-addressed (the key is the
 * SHA-256 of the bytes), so an entry can never be stale and nothing needs invalidating: a purged
 * hash that is uploaded again has the same bytes. Access control happens before the cache is
 * consulted (the artifact lookup is per drive), so sharing entries across tenants leaks nothing.
 */
export interface BlobCacheOptions {
  /** Total bytes held; 0 disables the cache. */
  maxBytes: number;
  /** Larger blobs are never cached (they stream from S3, or are served by presigned URL). */
  maxObjectBytes: number;
}

export class BlobCache {
  /** Map iteration order is insertion order: the first key is the least recently used. */
  private readonly entries = new Map<string, Buffer>();
  private readonly loading = new Map<string, Promise<Buffer>>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly opts: BlobCacheOptions) {}

  /** Whether a blob of this size is worth holding. */
  accepts(size: number): boolean {
    return this.opts.maxBytes > 0 && size <= this.opts.maxObjectBytes && size <= this.opts.maxBytes;
  }

  get(hash: string): Buffer | undefined {
    const hit = this.entries.get(hash);
    if (!hit) return undefined;
    this.entries.delete(hash);
    this.entries.set(hash, hit);
    return hit;
  }

  set(hash: string, bytes: Buffer): void {
    if (!this.accepts(bytes.length) || this.entries.has(hash)) return;
    this.entries.set(hash, bytes);
    this.bytes += bytes.length;
    for (const [oldest, buf] of this.entries) {
      if (this.bytes <= this.opts.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= buf.length;
    }
  }

  /** The cached bytes, or `load()` once for any number of concurrent callers, then cached. */
  async getOrLoad(hash: string, load: () => Promise<Buffer>): Promise<Buffer> {
    const hit = this.get(hash);
    if (hit) {
      this.hits++;
      return hit;
    }
    this.misses++;
    let pending = this.loading.get(hash);
    if (!pending) {
      pending = load()
        .then((bytes) => {
          this.set(hash, bytes);
          return bytes;
        })
        .finally(() => this.loading.delete(hash));
      this.loading.set(hash, pending);
    }
    return pending;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
