import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../Store.ts';
import type { RoleMembersTable, RolesTable } from '../schema.ts';

export type RoleRow = Selectable<RolesTable>;
export type RoleMemberRow = Selectable<RoleMembersTable>;

export function findRole(db: Executor, roleKey: string): Promise<RoleRow | undefined> {
  return db.selectFrom('roles').selectAll().where('role_key', '=', roleKey).executeTakeFirst();
}

export function listRoles(db: Executor): Promise<RoleRow[]> {
  return db.selectFrom('roles').selectAll().orderBy('role_key').execute();
}

export async function insertRole(db: Executor, row: Insertable<RolesTable>): Promise<void> {
  await db.insertInto('roles').values(row).execute();
}

export async function updateRole(db: Executor, roleKey: string, patch: Updateable<RolesTable>): Promise<void> {
  await db.updateTable('roles').set(patch).where('role_key', '=', roleKey).execute();
}

export async function deleteRole(db: Executor, roleKey: string): Promise<void> {
  await db.deleteFrom('role_members').where('role_key', '=', roleKey).execute();
  await db.deleteFrom('roles').where('role_key', '=', roleKey).execute();
}

export function listRoleMembers(db: Executor, roleKey: string): Promise<RoleMemberRow[]> {
  return db.selectFrom('role_members').selectAll().where('role_key', '=', roleKey).orderBy('assignee_key').execute();
}

export function findRoleMember(
  db: Executor,
  key: { role_key: string; assignee_key: string; assignee_type: string; object_id: string },
): Promise<RoleMemberRow | undefined> {
  return db
    .selectFrom('role_members')
    .selectAll()
    .where('role_key', '=', key.role_key)
    .where('assignee_key', '=', key.assignee_key)
    .where('assignee_type', '=', key.assignee_type)
    .where('object_id', '=', key.object_id)
    .executeTakeFirst();
}

export async function insertRoleMember(db: Executor, row: Insertable<RoleMembersTable>): Promise<void> {
  await db.insertInto('role_members').values(row).execute();
}

export async function deleteRoleMember(
  db: Executor,
  key: { role_key: string; assignee_key: string; assignee_type: string; object_id: string },
): Promise<void> {
  await db
    .deleteFrom('role_members')
    .where('role_key', '=', key.role_key)
    .where('assignee_key', '=', key.assignee_key)
    .where('assignee_type', '=', key.assignee_type)
    .where('object_id', '=', key.object_id)
    .execute();
}

/** Right flags of every enabled role the user belongs to, directly or through an enabled group membership. */
export async function enabledRoleFlagsOfUser(db: Executor, userKey: string): Promise<string[]> {
  const direct = await db
    .selectFrom('role_members as m')
    .innerJoin('roles as r', 'r.role_key', 'm.role_key')
    .select('r.right_flags')
    .where('m.assignee_key', '=', userKey)
    .where('m.assignee_type', '=', 'User')
    .where('r.enabled', '=', 1)
    .execute();
  const viaGroups = await db
    .selectFrom('role_members as m')
    .innerJoin('roles as r', 'r.role_key', 'm.role_key')
    .innerJoin('groups as g', 'g.group_key', 'm.assignee_key')
    .innerJoin('group_members as gm', 'gm.group_key', 'g.group_key')
    .select('r.right_flags')
    .where('m.assignee_type', '=', 'Group')
    .where('gm.member_key', '=', userKey)
    .where('gm.enabled', '=', 1)
    .where('g.enabled', '=', 1)
    .where('r.enabled', '=', 1)
    .execute();
  return [...direct, ...viaGroups].map((r) => r.right_flags);
}

/** Whether a user is a direct member of a role (under any ObjectID). */
export async function isUserInRole(db: Executor, roleKey: string, userKey: string): Promise<boolean> {
  const r = await db
    .selectFrom('role_members')
    .select('assignee_key')
    .where('role_key', '=', roleKey)
    .where('assignee_key', '=', userKey)
    .where('assignee_type', '=', 'User')
    .executeTakeFirst();
  return r !== undefined;
}

/** Distinct users that are direct members of a role. */
export async function countUserMembers(db: Executor, roleKey: string): Promise<number> {
  const r = await db
    .selectFrom('role_members')
    .select((eb) => eb.fn.count<number>('assignee_key').distinct().as('n'))
    .where('role_key', '=', roleKey)
    .where('assignee_type', '=', 'User')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
