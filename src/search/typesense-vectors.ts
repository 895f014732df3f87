import type { Client } from 'typesense';
import type { PassageAwaitingVector, PassageVector } from './engine.js';

/**
 * The Typesense engine's passages that wait for their vectors (docs/decisions/indexing.md, "Vectors that catch up").
 * Typesense cannot filter on a missing field, so a passage carries `awaiting_vector` (true while its `embedding` is
 * absent); the vector search already skips passages without one.
 */
type Doc = Record<string, unknown>;
const quote = (v: string) => `\`${v.replaceAll('`', '')}\``;

export const AWAITING_FIELD = { name: 'awaiting_vector', type: 'bool', optional: true } as const;

/** A collection made before the field existed gets it (Typesense adds a field to a live collection). */
export async function ensureAwaitingField(client: Client, collection: string): Promise<void> {
  const schema = await client.collections(collection).retrieve();
  if (schema.fields?.some((f) => f.name === AWAITING_FIELD.name)) return;
  await client.collections(collection).update({ fields: [{ ...AWAITING_FIELD }] });
}

async function exportAwaiting(client: Client, collection: string, filter: string): Promise<Doc[]> {
  const lines = await client
    .collections<Doc>(collection)
    .documents()
    .export({
      filter_by: `${filter} && awaiting_vector:=true`,
      include_fields: 'id,drive_id,art_id,version_number,ord,text',
    });
  return lines
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Doc);
}

export async function typesenseAwaiting(
  client: Client,
  collection: string,
  targets: { driveId: string; artId: string }[],
): Promise<PassageAwaitingVector[]> {
  const out: PassageAwaitingVector[] = [];
  for (const t of targets) {
    const docs = await exportAwaiting(client, collection, `drive_id:=${quote(t.driveId)} && art_id:=${quote(t.artId)}`);
    for (const d of docs.sort((a, b) => Number(a.ord) - Number(b.ord)))
      out.push({ ...t, versionNumber: Number(d.version_number), ord: Number(d.ord), text: String(d.text) });
  }
  return out;
}

/** Only passages still awaiting a vector at the same version are updated (no transaction: read, then update). */
export async function typesenseSetVectors(client: Client, collection: string, vectors: PassageVector[]): Promise<void> {
  const byArtifact = new Map<string, PassageVector[]>();
  for (const v of vectors)
    byArtifact.set(`${v.driveId}\u0000${v.artId}`, [...(byArtifact.get(`${v.driveId}\u0000${v.artId}`) ?? []), v]);
  for (const group of byArtifact.values()) {
    const { driveId, artId } = group[0]!;
    const current = await typesenseAwaiting(client, collection, [{ driveId, artId }]);
    const rows = group
      .filter((v) => current.some((c) => c.ord === v.ord && c.versionNumber === v.versionNumber))
      .map((v) => ({ id: `${artId}:${v.ord}`, embedding: v.embedding, awaiting_vector: false }));
    if (rows.length) await client.collections<Doc>(collection).documents().import(rows, { action: 'update' });
  }
}

export async function typesenseCountAwaiting(
  client: Client,
  collection: string,
  filter: string,
  cap: number,
): Promise<number> {
  const res = await client
    .collections<Doc>(collection)
    .documents()
    .search({ q: '*', filter_by: `${filter} && awaiting_vector:=true`, per_page: 0 });
  return Math.min(cap, res.found ?? 0);
}
