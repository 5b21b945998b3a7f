/**
 * Rows -> wire records. Field names are the interface's PascalCase names, in alphabetical order
 * (as the original service serialises them); dates are `/Date(ms+0000)/`, unset dates MIN.
 */
import { formatDate } from '../domain/dates.ts';
import { renderParamsXml } from '../domain/paramsXml.ts';
import type { ActivityWireRow } from '../store/queries/activities.ts';
import type { DefinitionSummary } from '../store/queries/definitions.ts';
import type { EventRow } from '../store/queries/events.ts';
import type { InstanceRow } from '../store/queries/instances.ts';
import type { GroupMemberRow, GroupRow } from '../store/queries/groups.ts';
import type { RoleMemberRow, RoleRow } from '../store/queries/roles.ts';
import type { UserRow } from '../store/queries/users.ts';
import type { ProcedureRow, WorkItemRow } from '../store/queries/workItems.ts';

export type WireRecord = Record<string, unknown>;

export function toWFEvent(e: EventRow): WireRecord {
  return {
    ActivityInstID: e.activity_inst_id,
    AutoStart: e.auto_start === 1,
    CustomAttributes: null,
    Diagnostic: false,
    EndDate: formatDate(e.end_date),
    Entries: e.entries,
    Error: e.error_code ? { Code: e.error_code, Message: e.error_message ?? '' } : null,
    EventID: e.event_id,
    EventName: e.event_name,
    HighPriority: e.high_priority === 1,
    // Stored packed (migration 0003): rendered from the row, byte for byte the text admitted.
    ParamsXml: renderParamsXml(e.params_xml_packed, e),
    ParentProcInstID: e.parent_proc_inst_id,
    ProcDefID: e.proc_def_id,
    ProcInstID: e.proc_inst_id,
    ProcInstName: e.proc_inst_name,
    Sender: e.sender,
    SentDate: formatDate(e.sent_date),
    SourceWorkItemID: e.source_work_item_id,
    Status: e.status,
    UserID: e.user_id,
    WorkItemID: e.work_item_id,
    WorkObjectID: e.work_object_id,
    WorkObjectInfo: e.work_object_info,
  };
}

export function toActivityInstance(a: ActivityWireRow): WireRecord {
  return {
    CompletedDate: formatDate(a.completed_date),
    DisplayName: a.display_name,
    DueDate: formatDate(a.due_date),
    ID: a.id,
    InStack: a.in_stack === 1,
    Name: a.name,
    Pending: a.pending === 1,
    ProcInstID: a.proc_inst_id,
    Session: a.session,
    StartedDate: formatDate(a.started_date),
    TokenPos: { Value: a.token_pos },
    Tokens: a.tokens,
  };
}

export function toRegisteredUser(u: UserRow): WireRecord {
  return {
    Department: u.department,
    Disabled: u.disabled === 1,
    EmailAddress: u.email_address,
    FullName: u.full_name,
    Locale: u.locale,
    Manager: u.manager,
    OnlineContact: u.online_contact,
    RefID: u.ref_id,
    RegisteredDate: formatDate(u.registered_date),
    TimeZone: u.time_zone,
    Title: u.title,
    UALExpirationDate: formatDate(u.ual_expiration_date),
    UALNeverExpires: u.ual_never_expires === 1,
    UserName: u.user_name,
  };
}

export function toWFRole(r: RoleRow): WireRecord {
  return {
    CreatedBy: r.created_by,
    CreatedDate: formatDate(r.created_date),
    Description: r.description,
    Enabled: r.enabled === 1,
    LastModifiedBy: r.last_modified_by,
    LastModifiedDate: formatDate(r.last_modified_date),
    Name: r.name,
    RightFlags: r.right_flags,
  };
}

export function toWFRoleMember(m: RoleMemberRow, roleName: string): WireRecord {
  return {
    Assignee: m.assignee,
    AssigneeType: m.assignee_type,
    ClientData: m.client_data,
    CreatedBy: m.created_by,
    CreatedDate: formatDate(m.created_date),
    ObjectID: m.object_id,
    ObjectName: null,
    ObjectType: m.object_type,
    RoleName: roleName,
  };
}

export function toProcessDefinition(d: DefinitionSummary): WireRecord {
  return {
    ApplName: '',
    BaseDefID: d.base_def_id,
    CreatedBy: d.created_by,
    CreatedDate: formatDate(d.created_date),
    DefID: d.def_id,
    DefName: d.def_name,
    Description: d.description,
    ProcessDefinitionDisplayName: d.def_name,
    ReleaseDate: formatDate(d.release_date),
    Status: d.status,
    Version: String(d.version),
  };
}

export function toProcessInstance(p: InstanceRow): WireRecord {
  return {
    ApplName: '',
    CompletedDate: formatDate(p.completed_date),
    DefID: p.def_id,
    DefName: p.def_name,
    DueDate: formatDate(p.due_date),
    Incident: p.incident,
    LastModifiedBy: p.last_modified_by,
    LastModifiedDate: formatDate(p.last_modified_date),
    ProcInitiator: p.initiator,
    ProcInstID: p.proc_inst_id,
    ProcInstName: p.proc_inst_name,
    ProcessDefinitionDisplayName: p.def_name,
    ProcessInitiator: p.initiator,
    StartedDate: formatDate(p.started_date),
    Status: p.status,
    SuperProcInstID: p.super_proc_inst_id,
    Version: String(p.version),
    WorkObjectID: p.work_object_id,
    WorkObjectInfo: p.work_object_info,
  };
}

export function toWorkItem(w: WorkItemRow, p: Pick<InstanceRow, 'def_id' | 'def_name' | 'proc_inst_name' | 'status' | 'work_object_id'> | undefined): WireRecord {
  return {
    ActivatedDate: formatDate(w.activated_date),
    ActivityInstID: w.activity_inst_id,
    ApplName: '',
    AssignedDate: formatDate(w.assigned_date),
    CancelledDate: formatDate(w.cancelled_date),
    ClientData: w.client_data,
    CompletedDate: formatDate(w.completed_date),
    CreatedDate: formatDate(w.created_date),
    DefName: p?.def_name ?? '',
    DisplayName: w.display_name,
    DueDate: formatDate(w.due_date),
    LastModifiedBy: w.last_modified_by,
    LastModifiedDate: formatDate(w.last_modified_date),
    Name: w.name,
    OriginalUserID: w.original_user_id,
    // A suspended instance's tasks are pending (api-facts §2.8).
    Pending: p?.status === 'Suspended',
    PoolInfo: w.pool_info,
    Priority: w.priority,
    ProcDefID: p?.def_id ?? '',
    ProcInstID: w.proc_inst_id,
    ProcInstName: p?.proc_inst_name ?? '',
    Session: w.session,
    SourceWorkItemID: w.source_work_item_id,
    Status: w.status,
    UserID: w.user_id,
    WaitWorkPerformed: w.wait_work_performed === 1,
    WorkItemID: w.work_item_id,
    WorkObjectID: p?.work_object_id ?? '',
  };
}

export function toProcedure(a: ProcedureRow): WireRecord {
  return {
    ActivityInstID: a.activity_inst_id,
    ApplName: '',
    CompletedDate: formatDate(a.completed_date),
    CreatedDate: formatDate(a.created_date),
    DueDate: formatDate(a.due_date),
    Pending: a.status === 'Waiting',
    ProcInstID: a.proc_inst_id,
    ProcedureInfo: a.procedure_info,
    Session: a.session,
    Status: a.status,
    Synchronous: false,
    WorkItemID: a.work_item_id,
  };
}

export function toWFGroup(g: GroupRow): WireRecord {
  return {
    CreatedBy: g.created_by,
    CreatedDate: formatDate(g.created_date),
    Description: g.description,
    Enabled: g.enabled === 1,
    LastModifiedBy: g.last_modified_by,
    LastModifiedDate: formatDate(g.last_modified_date),
    Name: g.name,
    ResponsibleUser: g.responsible_user,
    Source: null,
  };
}

export function toWFGroupMember(m: GroupMemberRow, groupName: string): WireRecord {
  return {
    ClientData: m.client_data,
    CreatedBy: m.created_by,
    CreatedDate: formatDate(m.created_date),
    Description: m.description,
    Enabled: m.enabled === 1,
    Member: m.member_name,
    Name: groupName,
  };
}
