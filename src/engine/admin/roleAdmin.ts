/** Roles and role membership: AddRole, UpdateRole, GetRole(s), RemoveRole, Add/RemoveRoleMember. */
import { WaymarkError } from '../../domain/errors.ts';
import { ZERO_ID } from '../../domain/ids.ts';
import { ACCESS_RIGHT_DISPLAY_NAMES, RIGHT_COUNT, flagsToRights, parseRights, rightsToFlags } from '../../domain/rights.ts';
import {
  countUserMembers,
  deleteRole,
  deleteRoleMember,
  findRole,
  findRoleMember,
  insertRole,
  insertRoleMember,
  listRoles,
  updateRole as updateRoleRow,
  type RoleRow,
} from '../../store/queries/roles.ts';
import { findUser } from '../../store/queries/users.ts';
import type { Executor } from '../../store/Store.ts';
import { authorize, requireCanGrant, type Caller } from '../accessPolicy.ts';
import type { Authenticator } from '../Authenticator.ts';
import type { EngineDeps } from '../context.ts';
import { toWFRole, toWFRoleMember, type WireRecord } from '../records.ts';
import { LIMITS, optionalBoolean, optionalString, requireString, requireUserName } from '../validate.ts';
import { auditAdmin } from './adminAudit.ts';
import { existingGroup } from './groupAdmin.ts';

export const ADMINISTRATORS = 'Administrators';
export const ADMINISTRATORS_KEY = 'administrators';
export const ALL_RIGHTS_FLAGS = 'Y'.repeat(RIGHT_COUNT);

export interface RoleInput {
  RoleName?: unknown;
  Description?: unknown;
  Enabled?: unknown;
  Rights?: unknown;
}

export interface RoleMemberInput {
  RoleName?: unknown;
  Assignee?: unknown;
  AssigneeType?: unknown;
  ClientData?: unknown;
  ObjectID?: unknown;
  ObjectType?: unknown;
}

export async function addRole(deps: EngineDeps, auth: Authenticator, caller: Caller, input: RoleInput): Promise<WireRecord> {
  await authorize(caller, 'AddRole');
  const name = requireString(input.RoleName, 'RoleName');
  const rights = input.Rights === undefined || input.Rights === null ? [] : parseRights(input.Rights);
  requireCanGrant(caller, rights);
  const description = optionalString(input.Description, 'Description', LIMITS.description) ?? '';
  const enabled = optionalBoolean(input.Enabled, 'Enabled', true);
  return deps.store.grouped(async (trx) => {
    const existing = await findRole(trx, name.toLowerCase());
    if (existing) throw new WaymarkError('DuplicateRole', `Role ${existing.name} already exists.`);
    const now = deps.now();
    const row: RoleRow = {
      role_key: name.toLowerCase(),
      name,
      description,
      enabled: enabled ? 1 : 0,
      right_flags: rightsToFlags(rights),
      built_in: 0,
      created_by: caller.userName,
      created_date: now,
      last_modified_by: '',
      last_modified_date: null,
    };
    await insertRole(trx, row);
    await auditAdmin(trx, caller, now, name, 'Add role', `Role ${name} added with rights [${rights.join(',')}].`);
    await auth.securityChanged(trx);
    return toWFRole(row);
  });
}

/** Updates description, enabled flag and rights; properties left out keep their value. */
export async function updateRole(deps: EngineDeps, auth: Authenticator, caller: Caller, input: RoleInput): Promise<WireRecord> {
  await authorize(caller, 'UpdateRole');
  const name = requireString(input.RoleName, 'RoleName');
  const rights = input.Rights === undefined || input.Rights === null ? null : parseRights(input.Rights);
  const description = optionalString(input.Description, 'Description', LIMITS.description);
  const enabled = input.Enabled === undefined || input.Enabled === null ? null : optionalBoolean(input.Enabled, 'Enabled', true);
  return deps.store.grouped(async (trx) => {
    const role = await existingRole(trx, name);
    if (role.built_in === 1 && (enabled === false || (rights !== null && rights.length < RIGHT_COUNT))) {
      throw new WaymarkError('BuiltInRoleProtected', `${role.name} must stay enabled and keep every right.`);
    }
    if (rights !== null) {
      const held = new Set(flagsToRights(role.right_flags));
      requireCanGrant(caller, rights.filter((r) => !held.has(r)));
    }
    const now = deps.now();
    const patch = {
      ...(description !== null ? { description } : {}),
      ...(enabled !== null ? { enabled: enabled ? 1 : 0 } : {}),
      ...(rights !== null ? { right_flags: rightsToFlags(rights) } : {}),
      last_modified_by: caller.userName,
      last_modified_date: now,
    };
    await updateRoleRow(trx, role.role_key, patch);
    const changes = [description !== null ? 'description' : '', enabled !== null ? `enabled=${enabled}` : '', rights !== null ? `rights [${rights.join(',')}]` : '']
      .filter(Boolean)
      .join(', ');
    await auditAdmin(trx, caller, now, role.name, 'Update role', `Role ${role.name}: ${changes || 'no change'}.`);
    await auth.securityChanged(trx);
    return toWFRole({ ...role, ...patch });
  });
}

export async function getRole(deps: EngineDeps, caller: Caller, nameIn: unknown): Promise<WireRecord> {
  await authorize(caller, 'GetRole');
  return toWFRole(await existingRole(deps.store.db, requireString(nameIn, 'roleName')));
}

export async function getRoles(deps: EngineDeps, caller: Caller): Promise<WireRecord[]> {
  await authorize(caller, 'GetRoles');
  return (await listRoles(deps.store.db)).map(toWFRole);
}

export async function removeRole(deps: EngineDeps, auth: Authenticator, caller: Caller, nameIn: unknown): Promise<void> {
  await authorize(caller, 'RemoveRole');
  const name = requireString(nameIn, 'roleName');
  await deps.store.grouped(async (trx) => {
    const role = await existingRole(trx, name);
    if (role.built_in === 1) throw new WaymarkError('BuiltInRoleProtected', `${role.name} is built in and cannot be removed.`);
    await deleteRole(trx, role.role_key);
    await auditAdmin(trx, caller, deps.now(), role.name, 'Remove role', `Role ${role.name} removed.`);
    await auth.securityChanged(trx);
  });
}

export async function addRoleMember(deps: EngineDeps, auth: Authenticator, caller: Caller, input: RoleMemberInput): Promise<WireRecord> {
  await authorize(caller, 'AddRoleMember');
  const member = memberKey(input);
  const clientData = optionalString(input.ClientData, 'ClientData', LIMITS.clientData);
  const objectType = optionalString(input.ObjectType, 'ObjectType') ?? 'All';
  return deps.store.grouped(async (trx) => {
    const role = await existingRole(trx, member.roleName);
    requireCanGrant(caller, flagsToRights(role.right_flags));
    const assignee = await memberName(trx, member);
    const key = { role_key: role.role_key, assignee_key: member.assignee.key, assignee_type: member.type, object_id: member.objectId };
    if (await findRoleMember(trx, key)) throw new WaymarkError('DuplicateRoleMember', `${assignee} is already a member of ${role.name}.`);
    const now = deps.now();
    const row = { ...key, assignee, object_type: objectType, client_data: clientData, created_by: caller.userName, created_date: now };
    await insertRoleMember(trx, row);
    await auditAdmin(trx, caller, now, role.name, 'Add role member', `${member.type} ${assignee} added to ${role.name}.`);
    await auth.securityChanged(trx);
    return toWFRoleMember(row, role.name);
  });
}

export async function removeRoleMember(deps: EngineDeps, auth: Authenticator, caller: Caller, input: RoleMemberInput): Promise<void> {
  await authorize(caller, 'RemoveRoleMember');
  const member = memberKey(input);
  await deps.store.grouped(async (trx) => {
    const role = await existingRole(trx, member.roleName);
    const key = { role_key: role.role_key, assignee_key: member.assignee.key, assignee_type: member.type, object_id: member.objectId };
    const existing = await findRoleMember(trx, key);
    if (!existing) throw new WaymarkError('RoleMemberNotFound', `${member.assignee.name} is not a member of ${role.name}.`);
    if (role.built_in === 1 && member.type === 'User' && (await countUserMembers(trx, role.role_key)) <= 1) {
      throw new WaymarkError('LastAdministrator', `${existing.assignee} is the last member of ${role.name}; add another administrator first.`);
    }
    await deleteRoleMember(trx, key);
    await auditAdmin(trx, caller, deps.now(), role.name, 'Remove role member', `${existing.assignee} removed from ${role.name}.`);
    await auth.securityChanged(trx);
  });
}

export async function getAccessRightNames(caller: Caller): Promise<string[]> {
  await authorize(caller, 'GetAccessRightNames');
  return [...ACCESS_RIGHT_DISPLAY_NAMES];
}

/** First start: the built-in Administrators role, holding every right. */
export async function ensureAdministratorsRole(db: Executor, now: number, createdBy: string): Promise<void> {
  if (await findRole(db, ADMINISTRATORS_KEY)) return;
  await insertRole(db, {
    role_key: ADMINISTRATORS_KEY,
    name: ADMINISTRATORS,
    description: 'Built-in role holding every access right.',
    enabled: 1,
    right_flags: ALL_RIGHTS_FLAGS,
    built_in: 1,
    created_by: createdBy,
    created_date: now,
    last_modified_by: '',
    last_modified_date: null,
  });
}

async function existingRole(db: Executor, name: string): Promise<RoleRow> {
  const role = await findRole(db, name.toLowerCase());
  if (!role) throw new WaymarkError('RoleNotFound', `Role ${name} does not exist.`);
  return role;
}

interface MemberKey {
  roleName: string;
  type: 'User' | 'Group';
  assignee: { name: string; key: string };
  objectId: string;
}

/** AssigneeType `User` (Assignee is DOMAIN\user) or `Group` (Assignee is a group name). */
function memberKey(input: RoleMemberInput): MemberKey {
  const roleName = requireString(input.RoleName, 'RoleName');
  const typeIn = (optionalString(input.AssigneeType, 'AssigneeType') ?? 'User').toLowerCase();
  if (typeIn !== 'user' && typeIn !== 'group') {
    throw new WaymarkError('InvalidRequest', `AssigneeType "${input.AssigneeType}" is not known: role members are of type "User" or "Group".`);
  }
  const type = typeIn === 'user' ? 'User' : 'Group';
  let assignee: { name: string; key: string };
  if (type === 'User') assignee = requireUserName(input.Assignee, 'Assignee');
  else {
    const name = requireString(input.Assignee, 'Assignee');
    assignee = { name, key: name.toLowerCase() };
  }
  const objectId = optionalString(input.ObjectID, 'ObjectID') || ZERO_ID;
  return { roleName, type, assignee, objectId: objectId.toUpperCase() };
}

/** The member's name as registered: a user that exists, or a group that exists. */
async function memberName(db: Executor, member: MemberKey): Promise<string> {
  if (member.type === 'Group') return (await existingGroup(db, member.assignee.name)).name;
  const user = await findUser(db, member.assignee.key);
  if (!user) throw new WaymarkError('UserNotFound', `User ${member.assignee.name} is not registered.`);
  return user.user_name;
}
