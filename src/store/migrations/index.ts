import type { Kysely, Migration } from 'kysely';
import type { DialectCaps } from '../dialect.ts';
import * as m0001 from './0001_initial.ts';
import * as m0002 from './0002_engine.ts';
import * as m0003 from './0003_compact_events.ts';
import * as m0004 from './0004_partial_link_indexes.ts';
import * as m0005 from './0005_drop_audit_event_index.ts';
import * as m0006 from './0006_partial_active_activities.ts';

type MigrationModule = { up(db: Kysely<any>, caps: DialectCaps): Promise<void> };

/** Numbered, append-only. A new schema change is a new file here; never edit a released one. */
const MIGRATIONS: Record<string, MigrationModule> = {
  '0001_initial': m0001,
  '0002_engine': m0002,
  '0003_compact_events': m0003,
  '0004_partial_link_indexes': m0004,
  '0005_drop_audit_event_index': m0005,
  '0006_partial_active_activities': m0006,
};

export function migrationsFor(caps: DialectCaps): Record<string, Migration> {
  const out: Record<string, Migration> = {};
  for (const [name, mod] of Object.entries(MIGRATIONS)) {
    out[name] = { up: (db) => mod.up(db, caps) };
  }
  return out;
}

export const KNOWN_MIGRATIONS: readonly string[] = Object.keys(MIGRATIONS);
