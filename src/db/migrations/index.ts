import { Migration20261122000000_foundation } from './Migration20261122000000_foundation.js';
import { Migration20261122030000_search } from './Migration20261122030000_search.js';

/** Migrations in the order they run. Append new ones at the end; never edit a landed one. */
export const migrations = [
  { name: 'Migration20261122000000_foundation', class: Migration20261122000000_foundation },
  { name: 'Migration20261122030000_search', class: Migration20261122030000_search },
];
