import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 53, indexing that always progresses: passages are stored before their vectors (lexical find is fresh while
 * the semantic leg catches up) and the `embed` topic fills the vectors in later (docs/decisions/indexing.md, "Vectors
 * that catch up"). This partial index holds only the passages still waiting: find counts the ones in its scope to say
 * the semantic leg is behind, and stays one index probe (empty) once the drive has caught up.
 */
export class Migration20261231153000_passages_awaiting_vectors extends Migration {
  override up(): void {
    this.addSql(`create index search_passages_awaiting_vector_idx on search_passages (drive_id, art_id)
      where signature is null;`);
  }

  override down(): void {
    this.addSql('drop index if exists search_passages_awaiting_vector_idx;');
  }
}
