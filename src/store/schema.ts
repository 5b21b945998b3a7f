/**
 * Table types for Kysely. Times are integer milliseconds since the epoch (UTC); booleans are 0/1
 * integers so that both dialects store them the same way.
 */
import type { Generated } from 'kysely';

export interface UsersTable {
  user_key: string;
  user_name: string;
  full_name: Generated<string>;
  email_address: Generated<string>;
  department: Generated<string>;
  title: Generated<string>;
  manager: Generated<string>;
  locale: Generated<string>;
  time_zone: Generated<string>;
  online_contact: Generated<string>;
  ref_id: Generated<string>;
  registered_date: number;
  ual_expiration_date: number | null;
  ual_never_expires: Generated<number>;
  disabled: Generated<number>;
}

export interface CredentialsTable {
  user_key: string;
  password_hash: string;
  updated_date: number;
}

export interface RolesTable {
  role_key: string;
  name: string;
  description: Generated<string>;
  enabled: number;
  right_flags: string;
  built_in: Generated<number>;
  created_by: string;
  created_date: number;
  last_modified_by: Generated<string>;
  last_modified_date: number | null;
}

export interface RoleMembersTable {
  role_key: string;
  assignee: string;
  assignee_key: string;
  assignee_type: string;
  object_id: string;
  object_type: string;
  client_data: string | null;
  created_by: string;
  created_date: number;
}

export interface ProcessDefinitionsTable {
  def_id: string;
  base_def_id: string;
  def_name: string;
  def_name_key: string;
  version: number;
  status: string;
  description: string;
  xml: string;
  created_by: string;
  created_date: number;
  release_date: number | null;
}

export interface ProcessInstancesTable {
  proc_inst_id: string;
  proc_inst_name: string;
  proc_inst_name_key: string;
  def_id: string;
  def_name: string;
  version: number;
  status: string;
  initiator: string;
  initiator_key: string;
  work_object_id: Generated<string>;
  work_object_info: Generated<string>;
  super_proc_inst_id: Generated<string>;
  custom_id: string;
  started_date: number;
  completed_date: number | null;
  due_date: number | null;
  last_modified_by: string;
  last_modified_date: number;
  incident: string | null;
  next_activity_ord: Generated<number>;
  /** A child started by a call activity: the parent's activity instance waiting for it. */
  super_activity_inst_id: Generated<string>;
  /** The activity instance the current incident concerns ('' when none). */
  incident_activity_id: Generated<string>;
}

export interface ActivityInstancesTable {
  id: string;
  proc_inst_id: string;
  ord: number;
  name: string;
  display_name: string;
  kind: string;
  status: string;
  started_date: number;
  completed_date: number | null;
  due_date: number | null;
  in_stack: number;
  pending: number;
  session: number;
  token_pos: number;
  tokens: number;
  /** The activity instance of the embedded sub-process this activity runs in ('' at process level). */
  scope_id: Generated<string>;
  /** Joins: the incoming flow ids whose tokens have arrived, comma-separated. */
  arrived: Generated<string>;
}

export interface WorkItemsTable {
  work_item_id: string;
  proc_inst_id: string;
  activity_inst_id: string;
  name: string;
  display_name: string;
  status: string;
  user_id: Generated<string>;
  user_key: Generated<string>;
  original_user_id: Generated<string>;
  client_data: string | null;
  created_date: number;
  assigned_date: number | null;
  completed_date: number | null;
  cancelled_date: number | null;
  activated_date: number | null;
  due_date: number | null;
  source_work_item_id: Generated<string>;
  wait_work_performed: Generated<number>;
  session: number;
  priority: Generated<string>;
  pool_info: Generated<string>;
  last_modified_by: string;
  last_modified_date: number;
  /** 1 for a task added with CreateWorkItem: it does not hold the activity's token. */
  independent: Generated<number>;
  /** A `Removed` item: the pooled item that someone else took. */
  removed_from: Generated<string>;
}

export interface WorkItemPoolTable {
  work_item_id: string;
  member_key: string;
  member_name: string;
}

/** Everyone who has been initiator, assignee or pool member of an instance: may read its details. */
export interface ParticipantsTable {
  proc_inst_id: string;
  user_key: string;
}

export interface AutomaticWorkItemsTable {
  work_item_id: string;
  proc_inst_id: string;
  activity_inst_id: string;
  status: string;
  procedure_info: Generated<string>;
  created_date: number;
  completed_date: number | null;
  due_date: number | null;
  session: number;
}

export interface EventsTable {
  seq: Generated<number>;
  event_id: string;
  event_name: string;
  status: string;
  proc_inst_id: string;
  activity_inst_id: string;
  work_item_id: string;
  source_work_item_id: string;
  user_id: string;
  sender: string;
  sent_date: number;
  end_date: number | null;
  entries: number;
  error_code: string | null;
  error_message: string | null;
  high_priority: number;
  auto_start: number;
  params: string;
  /** ParamsXml in its stored form (src/domain/paramsXml.ts renderParamsXml): params equal to a column are a letter. */
  params_xml_packed: string;
  proc_def_id: string;
  proc_inst_name: string;
  parent_proc_inst_id: string;
  work_object_id: string;
  work_object_info: string;
  claimed_by: string | null;
  claimed_at: number | null;
}

export interface CustomAttributesTable {
  custom_id: string;
  name: string;
  value: string;
}

export interface AuditTrailTable {
  id: Generated<number>;
  category: number;
  date_occurred: number;
  description: string;
  object_id: string;
  object_info: string;
  performer: string;
  purpose: string;
  status: number;
  event_id: string | null;
}

export interface GroupsTable {
  group_key: string;
  name: string;
  description: Generated<string>;
  responsible_user: Generated<string>;
  enabled: number;
  created_by: string;
  created_date: number;
  last_modified_by: Generated<string>;
  last_modified_date: number | null;
}

export interface GroupMembersTable {
  group_key: string;
  member_key: string;
  member_name: string;
  description: Generated<string>;
  client_data: string | null;
  enabled: number;
  created_by: string;
  created_date: number;
}

/**
 * A timer: when `due_date` passes, the timer loop claims it (status Waiting -> Fired) and, in the
 * same transaction, turns its `Deferred` event `Sent`. kind: boundary, intermediate or overdue.
 */
export interface TimersTable {
  timer_id: string;
  proc_inst_id: string;
  activity_inst_id: string;
  work_item_id: Generated<string>;
  node_id: Generated<string>;
  kind: string;
  due_date: number;
  event_id: string;
  status: string;
  created_date: number;
  fired_date: number | null;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface DB {
  users: UsersTable;
  credentials: CredentialsTable;
  roles: RolesTable;
  role_members: RoleMembersTable;
  process_definitions: ProcessDefinitionsTable;
  process_instances: ProcessInstancesTable;
  activity_instances: ActivityInstancesTable;
  work_items: WorkItemsTable;
  work_item_pool: WorkItemPoolTable;
  participants: ParticipantsTable;
  automatic_work_items: AutomaticWorkItemsTable;
  events: EventsTable;
  custom_attributes: CustomAttributesTable;
  audit_trail: AuditTrailTable;
  settings: SettingsTable;
  groups: GroupsTable;
  group_members: GroupMembersTable;
  timers: TimersTable;
}
