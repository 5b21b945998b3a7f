import type { Kysely } from 'kysely';
import type { DialectCaps } from '../dialect.ts';

/**
 * audit_trail_event (audit_trail.event_id) is dropped: no operation looks audit rows up by the
 * event that wrote them (QueryAuditTrail's columns do not include it, WFAuditTrailItem has no
 * EventID), yet every audit row (five per simple instance) paid an index entry, and on SQLite the
 * index was 3.4 of the ~61 pages each group commit of `bench e2e` wrote to the WAL (eighth round,
 * docs/performance-log.md). The column stays: it ties a row to its event when the trail is read by
 * hand, and a lookup by it (tests, support) reads the table.
 */
export async function up(db: Kysely<any>, _caps: DialectCaps): Promise<void> {
  await db.schema.dropIndex('audit_trail_event').execute();
}
