import { Migration20261122000000_foundation } from './Migration20261122000000_foundation.js';

/** Migrations in the order they run. Append new ones at the end; never edit a landed one. */
export const migrations = [{ name: 'Migration20261122000000_foundation', class: Migration20261122000000_foundation }];
