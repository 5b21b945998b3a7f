/**
 * Groups and group membership: AddGroup, GetGroup(s), UpdateGroup, RemoveGroup, AddGroupMember,
 * GetGroupMembers, RemoveGroupMember. Pools (`group(Name)`, camunda:candidateGroups) and role
 * memberships (AddRoleMember with AssigneeType Group) name groups; a disabled group or member
 * counts for neither. Membership changes change rights, so they bump the security epoch.
 */
import { WaymarkError } from '../../domain/errors.ts';
import {
  deleteGroup,
  deleteGroupMember,
  findGroup,
  findGroupMember,
  insertGroup,
  insertGroupMember,
  listGroupMembers,
  listGroups,
  updateGroup as updateGroupRow,
  type GroupRow,
} from '../../store/queries/groups.ts';
import type { Executor } from '../../store/Store.ts';
import { authorize, type Caller } from '../accessPolicy.ts';
import type { Authenticator } from '../Authenticator.ts';
import type { EngineDeps } from '../context.ts';
import { toWFGroup, toWFGroupMember, type WireRecord } from '../records.ts';
import { registeredUser } from '../registeredUser.ts';
import { LIMITS, optionalBoolean, optionalString, requireString, requireUserName } from '../validate.ts';
import { auditAdmin } from './adminAudit.ts';

export interface GroupInput {
  GroupName?: unknown;
  Description?: unknown;
  ResponsibleUser?: unknown;
  Enabled?: unknown;
}

export interface GroupMemberInput {
  GroupName?: unknown;
  UserName?: unknown;
  Description?: unknown;
  ClientData?: unknown;
  Enabled?: unknown;
}

export async function addGroup(deps: EngineDeps, auth: Authenticator, caller: Caller, input: GroupInput): Promise<WireRecord> {
  await authorize(caller, 'AddGroup');
  const name = requireString(input.GroupName, 'GroupName');
  const description = optionalString(input.Description, 'Description', LIMITS.description) ?? '';
  const enabled = optionalBoolean(input.Enabled, 'Enabled', true);
  return deps.store.grouped(async (trx) => {
    const existing = await findGroup(trx, name.toLowerCase());
    if (existing) throw new WaymarkError('DuplicateGroup', `Group ${existing.name} already exists.`);
    const now = deps.now();
    const row: GroupRow = {
      group_key: name.toLowerCase(),
      name,
      description,
      responsible_user: await responsibleUser(trx, input.ResponsibleUser),
      enabled: enabled ? 1 : 0,
      created_by: caller.userName,
      created_date: now,
      last_modified_by: '',
      last_modified_date: null,
    };
    await insertGroup(trx, row);
    await auditAdmin(trx, caller, now, name, 'Add group', `Group ${name} added.`);
    await auth.securityChanged(trx);
    return toWFGroup(row);
  });
}

/** Description, ResponsibleUser and Enabled; properties left out keep their value. */
export async function updateGroup(deps: EngineDeps, auth: Authenticator, caller: Caller, input: GroupInput): Promise<WireRecord> {
  await authorize(caller, 'UpdateGroup');
  const name = requireString(input.GroupName, 'GroupName');
  const description = optionalString(input.Description, 'Description', LIMITS.description);
  const enabled = input.Enabled === undefined || input.Enabled === null ? null : optionalBoolean(input.Enabled, 'Enabled', true);
  return deps.store.grouped(async (trx) => {
    const group = await existingGroup(trx, name);
    const now = deps.now();
    const patch = {
      ...(description !== null ? { description } : {}),
      ...(enabled !== null ? { enabled: enabled ? 1 : 0 } : {}),
      ...(input.ResponsibleUser !== undefined && input.ResponsibleUser !== null ? { responsible_user: await responsibleUser(trx, input.ResponsibleUser) } : {}),
      last_modified_by: caller.userName,
      last_modified_date: now,
    };
    await updateGroupRow(trx, group.group_key, patch);
    await auditAdmin(trx, caller, now, group.name, 'Update group', `Group ${group.name} updated.`);
    await auth.securityChanged(trx);
    return toWFGroup({ ...group, ...patch });
  });
}

export async function getGroup(deps: EngineDeps, caller: Caller, nameIn: unknown): Promise<WireRecord> {
  await authorize(caller, 'GetGroup');
  return toWFGroup(await existingGroup(deps.store.db, requireString(nameIn, 'groupName')));
}

export async function getGroups(deps: EngineDeps, caller: Caller): Promise<WireRecord[]> {
  await authorize(caller, 'GetGroups');
  return (await listGroups(deps.store.db)).map(toWFGroup);
}

/** Removes the group, its memberships and the role memberships that name it. */
export async function removeGroup(deps: EngineDeps, auth: Authenticator, caller: Caller, nameIn: unknown): Promise<void> {
  await authorize(caller, 'RemoveGroup');
  const name = requireString(nameIn, 'groupName');
  await deps.store.grouped(async (trx) => {
    const group = await existingGroup(trx, name);
    await deleteGroup(trx, group.group_key);
    await auditAdmin(trx, caller, deps.now(), group.name, 'Remove group', `Group ${group.name} removed.`);
    await auth.securityChanged(trx);
  });
}

export async function addGroupMember(deps: EngineDeps, auth: Authenticator, caller: Caller, input: GroupMemberInput): Promise<WireRecord> {
  await authorize(caller, 'AddGroupMember');
  const name = requireString(input.GroupName, 'GroupName');
  const user = requireUserName(input.UserName, 'UserName');
  const description = optionalString(input.Description, 'Description', LIMITS.description) ?? '';
  const clientData = optionalString(input.ClientData, 'ClientData', LIMITS.clientData);
  const enabled = optionalBoolean(input.Enabled, 'Enabled', true);
  return deps.store.grouped(async (trx) => {
    const group = await existingGroup(trx, name);
    const memberName = await registeredUser(trx, user.key, user.name);
    if (await findGroupMember(trx, group.group_key, user.key)) {
      throw new WaymarkError('DuplicateGroupMember', `${memberName} is already a member of ${group.name}.`);
    }
    const now = deps.now();
    const row = {
      group_key: group.group_key, member_key: user.key, member_name: memberName, description, client_data: clientData,
      enabled: enabled ? 1 : 0, created_by: caller.userName, created_date: now,
    };
    await insertGroupMember(trx, row);
    await auditAdmin(trx, caller, now, group.name, 'Add group member', `${memberName} added to ${group.name}.`);
    await auth.securityChanged(trx);
    return toWFGroupMember(row, group.name);
  });
}

export async function getGroupMembers(deps: EngineDeps, caller: Caller, nameIn: unknown): Promise<WireRecord[]> {
  await authorize(caller, 'GetGroupMembers');
  const group = await existingGroup(deps.store.db, requireString(nameIn, 'groupName'));
  return (await listGroupMembers(deps.store.db, group.group_key)).map((m) => toWFGroupMember(m, group.name));
}

export async function removeGroupMember(deps: EngineDeps, auth: Authenticator, caller: Caller, input: GroupMemberInput): Promise<void> {
  await authorize(caller, 'RemoveGroupMember');
  const name = requireString(input.GroupName, 'GroupName');
  const user = requireUserName(input.UserName, 'UserName');
  await deps.store.grouped(async (trx) => {
    const group = await existingGroup(trx, name);
    const member = await findGroupMember(trx, group.group_key, user.key);
    if (!member) throw new WaymarkError('GroupMemberNotFound', `${user.name} is not a member of ${group.name}.`);
    await deleteGroupMember(trx, group.group_key, user.key);
    await auditAdmin(trx, caller, deps.now(), group.name, 'Remove group member', `${member.member_name} removed from ${group.name}.`);
    await auth.securityChanged(trx);
  });
}

export async function existingGroup(db: Executor, name: string): Promise<GroupRow> {
  const group = await findGroup(db, name.toLowerCase());
  if (!group) throw new WaymarkError('GroupNotFound', `Group ${name} does not exist.`);
  return group;
}

/** ResponsibleUser: a registered DOMAIN\user, or empty. */
async function responsibleUser(db: Executor, input: unknown): Promise<string> {
  if (input === undefined || input === null || input === '') return '';
  const user = requireUserName(input, 'ResponsibleUser');
  return registeredUser(db, user.key, user.name);
}
