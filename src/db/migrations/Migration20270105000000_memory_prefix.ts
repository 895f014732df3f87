import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 57: the drive folder an API key's memory tool works in (`/memories` → `memory_prefix`, docs/decisions/
 * memory-tool.md, "Memory prefix per credential"). Null is the default `memories`: every existing key keeps it.
 */
export class Migration20270105000000_memory_prefix extends Migration {
  override up(): void {
    this.addSql(`alter table api_keys add column if not exists memory_prefix text null;`);
  }

  override down(): void {
    this.addSql(`alter table api_keys drop column if exists memory_prefix;`);
  }
}
