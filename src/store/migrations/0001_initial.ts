import type { Kysely } from 'kysely';
import type { DialectCaps } from '../dialect.ts';

/** The first schema: users, roles, definitions, instances, activities, work items, events, audit. */
export async function up(db: Kysely<any>, caps: DialectCaps): Promise<void> {
  const t = caps.timeType;
  const s = db.schema;

  await s.createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await s.createTable('users')
    .addColumn('user_key', 'text', (c) => c.primaryKey())
    .addColumn('user_name', 'text', (c) => c.notNull())
    .addColumn('full_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('email_address', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('department', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('manager', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('locale', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('time_zone', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('online_contact', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('ref_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('registered_date', t, (c) => c.notNull())
    .addColumn('ual_expiration_date', t)
    .addColumn('ual_never_expires', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await s.createTable('credentials')
    .addColumn('user_key', 'text', (c) => c.primaryKey().references('users.user_key').onDelete('cascade'))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('updated_date', t, (c) => c.notNull())
    .execute();

  await s.createTable('roles')
    .addColumn('role_key', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('right_flags', 'text', (c) => c.notNull())
    .addColumn('built_in', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_date', t, (c) => c.notNull())
    .addColumn('last_modified_by', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('last_modified_date', t)
    .execute();

  await s.createTable('role_members')
    .addColumn('role_key', 'text', (c) => c.notNull().references('roles.role_key').onDelete('cascade'))
    .addColumn('assignee', 'text', (c) => c.notNull())
    .addColumn('assignee_key', 'text', (c) => c.notNull())
    .addColumn('assignee_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('client_data', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_date', t, (c) => c.notNull())
    .addPrimaryKeyConstraint('role_members_pk', ['role_key', 'assignee_type', 'assignee_key', 'object_id'])
    .execute();
  await s.createIndex('role_members_assignee').on('role_members').columns(['assignee_key']).execute();

  await s.createTable('process_definitions')
    .addColumn('def_id', 'text', (c) => c.primaryKey())
    .addColumn('base_def_id', 'text', (c) => c.notNull())
    .addColumn('def_name', 'text', (c) => c.notNull())
    .addColumn('def_name_key', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('xml', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_date', t, (c) => c.notNull())
    .addColumn('release_date', t)
    .addUniqueConstraint('process_definitions_name_version', ['def_name_key', 'version'])
    .execute();

  await s.createTable('process_instances')
    .addColumn('proc_inst_id', 'text', (c) => c.primaryKey())
    .addColumn('proc_inst_name', 'text', (c) => c.notNull())
    .addColumn('proc_inst_name_key', 'text', (c) => c.notNull().unique())
    .addColumn('def_id', 'text', (c) => c.notNull().references('process_definitions.def_id'))
    .addColumn('def_name', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('initiator', 'text', (c) => c.notNull())
    .addColumn('initiator_key', 'text', (c) => c.notNull())
    .addColumn('work_object_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('work_object_info', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('super_proc_inst_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('custom_id', 'text', (c) => c.notNull())
    .addColumn('started_date', t, (c) => c.notNull())
    .addColumn('completed_date', t)
    .addColumn('due_date', t)
    .addColumn('last_modified_by', 'text', (c) => c.notNull())
    .addColumn('last_modified_date', t, (c) => c.notNull())
    .addColumn('incident', 'text')
    .addColumn('next_activity_ord', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await s.createIndex('process_instances_super').on('process_instances').columns(['super_proc_inst_id']).execute();
  await s.createIndex('process_instances_initiator').on('process_instances').columns(['initiator_key']).execute();

  await s.createTable('activity_instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('proc_inst_id', 'text', (c) => c.notNull().references('process_instances.proc_inst_id'))
    .addColumn('ord', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('started_date', t, (c) => c.notNull())
    .addColumn('completed_date', t)
    .addColumn('due_date', t)
    .addColumn('in_stack', 'integer', (c) => c.notNull())
    .addColumn('pending', 'integer', (c) => c.notNull())
    .addColumn('session', 'integer', (c) => c.notNull())
    .addColumn('token_pos', 'integer', (c) => c.notNull())
    .addColumn('tokens', 'integer', (c) => c.notNull())
    .execute();
  await s.createIndex('activity_instances_proc').on('activity_instances').columns(['proc_inst_id', 'ord']).execute();

  await s.createTable('work_items')
    .addColumn('work_item_id', 'text', (c) => c.primaryKey())
    .addColumn('proc_inst_id', 'text', (c) => c.notNull().references('process_instances.proc_inst_id'))
    .addColumn('activity_inst_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('user_key', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('original_user_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('client_data', 'text')
    .addColumn('created_date', t, (c) => c.notNull())
    .addColumn('assigned_date', t)
    .addColumn('completed_date', t)
    .addColumn('cancelled_date', t)
    .addColumn('activated_date', t)
    .addColumn('due_date', t)
    .addColumn('source_work_item_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('wait_work_performed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('session', 'integer', (c) => c.notNull())
    .addColumn('priority', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('pool_info', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('last_modified_by', 'text', (c) => c.notNull())
    .addColumn('last_modified_date', t, (c) => c.notNull())
    .execute();
  await s.createIndex('work_items_proc').on('work_items').columns(['proc_inst_id']).execute();
  await s.createIndex('work_items_user').on('work_items').columns(['user_key', 'status']).execute();
  await s.createIndex('work_items_source').on('work_items').columns(['source_work_item_id']).execute();
  await s.createIndex('work_items_activity').on('work_items').columns(['activity_inst_id']).execute();

  await s.createTable('work_item_pool')
    .addColumn('work_item_id', 'text', (c) => c.notNull().references('work_items.work_item_id'))
    .addColumn('member_key', 'text', (c) => c.notNull())
    .addColumn('member_name', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('work_item_pool_pk', ['work_item_id', 'member_key'])
    .execute();
  await s.createIndex('work_item_pool_member').on('work_item_pool').columns(['member_key']).execute();

  await s.createTable('participants')
    .addColumn('proc_inst_id', 'text', (c) => c.notNull())
    .addColumn('user_key', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('participants_pk', ['proc_inst_id', 'user_key'])
    .execute();

  await s.createTable('automatic_work_items')
    .addColumn('work_item_id', 'text', (c) => c.primaryKey())
    .addColumn('proc_inst_id', 'text', (c) => c.notNull().references('process_instances.proc_inst_id'))
    .addColumn('activity_inst_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('procedure_info', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_date', t, (c) => c.notNull())
    .addColumn('completed_date', t)
    .addColumn('due_date', t)
    .addColumn('session', 'integer', (c) => c.notNull())
    .execute();
  await s.createIndex('automatic_work_items_proc').on('automatic_work_items').columns(['proc_inst_id']).execute();

  await s.createTable('events')
    .addColumn('seq', caps.serialType, (c) => (caps.name === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('event_id', 'text', (c) => c.notNull().unique())
    .addColumn('event_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('proc_inst_id', 'text', (c) => c.notNull())
    .addColumn('activity_inst_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('work_item_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('source_work_item_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('user_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('sent_date', t, (c) => c.notNull())
    .addColumn('end_date', t)
    .addColumn('entries', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('high_priority', 'integer', (c) => c.notNull())
    .addColumn('auto_start', 'integer', (c) => c.notNull())
    .addColumn('params', 'text', (c) => c.notNull())
    .addColumn('params_xml', 'text', (c) => c.notNull())
    .addColumn('proc_def_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('proc_inst_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('parent_proc_inst_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('work_object_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('work_object_info', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_at', t)
    .execute();
  // Claims read Sent events in dispatch order (high priority first): one index range, no sort.
  await s.createIndex('events_pending').on('events').columns(['status', 'high_priority desc', 'seq']).execute();
  // "Is an earlier event of this instance still pending?": two short probes per applied event.
  await s.createIndex('events_instance_pending').on('events').columns(['proc_inst_id', 'status', 'high_priority', 'seq']).execute();
  await s.createIndex('events_proc').on('events').columns(['proc_inst_id', 'seq']).execute();

  await s.createTable('custom_attributes')
    .addColumn('custom_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('custom_attributes_pk', ['custom_id', 'name'])
    .execute();

  await s.createTable('audit_trail')
    .addColumn('id', caps.serialType, (c) => (caps.name === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('category', 'integer', (c) => c.notNull())
    .addColumn('date_occurred', t, (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('object_info', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('performer', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('event_id', 'text')
    .execute();
  await s.createIndex('audit_trail_object').on('audit_trail').columns(['object_id']).execute();
  await s.createIndex('audit_trail_event').on('audit_trail').columns(['event_id']).execute();
}
