import type { ArtifactSource, IndexableRecord } from '../../src/search/artifact-source.js';

/**
 * An ArtifactSource held in memory, for the search indexer's tests (the production one reads the artifact tables and
 * S3): `put` writes a version, `broken` names artifacts whose bytes cannot be read, `marked` records what the indexer
 * marked indexed.
 */
export class MemorySource implements ArtifactSource {
  readonly artifacts = new Map<string, IndexableRecord & { bytes: Buffer }>();
  readonly marked: { artId: string; versionNumber: number; embedded: boolean }[] = [];
  readonly broken = new Set<string>();
  /** What the embed topic marked embedded. */
  readonly embedded: { artId: string; versionNumber: number }[] = [];

  put(driveId: string, artId: string, p: string, text: string, extra: Partial<IndexableRecord> = {}) {
    const previous = this.artifacts.get(artId);
    const a = {
      driveId,
      artId,
      path: p,
      contentType: 'text/plain',
      fileType: 'text',
      labels: [],
      metadata: {},
      hash: `h-${artId}`,
      updatedAt: new Date(),
      versionNumber: (previous?.versionNumber ?? 0) + 1,
      bytes: Buffer.from(text),
      sizeBytes: Buffer.byteLength(text),
      ...extra,
    };
    this.artifacts.set(artId, a);
    return a;
  }

  async records(targets: { artId: string }[]) {
    return new Map(
      targets.flatMap((t) => {
        const a = this.artifacts.get(t.artId);
        return a ? [[t.artId, a] as const] : [];
      }),
    );
  }

  async bytes(record: IndexableRecord) {
    if (this.broken.has(record.artId)) throw new Error(`S3 read of ${record.artId} failed`);
    return this.artifacts.get(record.artId)!.bytes;
  }

  async markIndexed(versions: { artId: string; versionNumber: number; embedded: boolean }[]) {
    this.marked.push(...versions.map(({ artId, versionNumber, embedded }) => ({ artId, versionNumber, embedded })));
  }

  async markEmbedded(versions: { artId: string; versionNumber: number }[]) {
    this.embedded.push(...versions.map(({ artId, versionNumber }) => ({ artId, versionNumber })));
  }
}
