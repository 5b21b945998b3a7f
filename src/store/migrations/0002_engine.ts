import type { Kysely } from 'kysely';
import type { DialectCaps } from '../dialect.ts';

/**
 * The full BPMN engine: groups and their members, timers (rows that fire once, with the event each
 * sends), and the running state the executor keeps as data: the scope of an activity inside an
 * embedded sub-process, the flows that reached a join, the call activity a child instance serves,
 * the activity an incident concerns, independent and Removed work items.
 */
export async function up(db: Kysely<any>, caps: DialectCaps): Promise<void> {
  const t = caps.timeType;
  const s = db.schema;

  await s.createTable('groups')
    .addColumn('group_key', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('responsible_user', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_date', t, (c) => c.notNull())
    .addColumn('last_modified_by', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('last_modified_date', t)
    .execute();

  await s.createTable('group_members')
    .addColumn('group_key', 'text', (c) => c.notNull().references('groups.group_key').onDelete('cascade'))
    .addColumn('member_key', 'text', (c) => c.notNull())
    .addColumn('member_name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('client_data', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_date', t, (c) => c.notNull())
    .addPrimaryKeyConstraint('group_members_pk', ['group_key', 'member_key'])
    .execute();
  await s.createIndex('group_members_member').on('group_members').columns(['member_key']).execute();

  await s.createTable('timers')
    .addColumn('timer_id', 'text', (c) => c.primaryKey())
    .addColumn('proc_inst_id', 'text', (c) => c.notNull().references('process_instances.proc_inst_id'))
    .addColumn('activity_inst_id', 'text', (c) => c.notNull())
    .addColumn('work_item_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('node_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('due_date', t, (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_date', t, (c) => c.notNull())
    .addColumn('fired_date', t)
    .execute();
  await s.createIndex('timers_due').on('timers').columns(['status', 'due_date']).execute();
  await s.createIndex('timers_activity').on('timers').columns(['activity_inst_id']).execute();
  await s.createIndex('timers_work_item').on('timers').columns(['work_item_id']).execute();
  await s.createIndex('timers_proc').on('timers').columns(['proc_inst_id']).execute();

  // SQLite adds one column per ALTER TABLE.
  await s.alterTable('activity_instances').addColumn('scope_id', 'text', (c) => c.notNull().defaultTo('')).execute();
  await s.alterTable('activity_instances').addColumn('arrived', 'text', (c) => c.notNull().defaultTo('')).execute();
  await s.createIndex('activity_instances_active').on('activity_instances').columns(['proc_inst_id', 'status']).execute();

  await s.alterTable('process_instances').addColumn('super_activity_inst_id', 'text', (c) => c.notNull().defaultTo('')).execute();
  await s.alterTable('process_instances').addColumn('incident_activity_id', 'text', (c) => c.notNull().defaultTo('')).execute();

  await s.alterTable('work_items').addColumn('independent', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await s.alterTable('work_items').addColumn('removed_from', 'text', (c) => c.notNull().defaultTo('')).execute();
  await s.createIndex('work_items_removed_from').on('work_items').columns(['removed_from']).execute();
}
