import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../Store.ts';
import type { GroupMembersTable, GroupsTable } from '../schema.ts';

export type GroupRow = Selectable<GroupsTable>;
export type GroupMemberRow = Selectable<GroupMembersTable>;

export function findGroup(db: Executor, groupKey: string): Promise<GroupRow | undefined> {
  return db.selectFrom('groups').selectAll().where('group_key', '=', groupKey).executeTakeFirst();
}

export function listGroups(db: Executor): Promise<GroupRow[]> {
  return db.selectFrom('groups').selectAll().orderBy('group_key').execute();
}

export async function insertGroup(db: Executor, row: Insertable<GroupsTable>): Promise<void> {
  await db.insertInto('groups').values(row).execute();
}

export async function updateGroup(db: Executor, groupKey: string, patch: Updateable<GroupsTable>): Promise<void> {
  await db.updateTable('groups').set(patch).where('group_key', '=', groupKey).execute();
}

/** Remove a group with its memberships, and the role memberships that name it. */
export async function deleteGroup(db: Executor, groupKey: string): Promise<void> {
  await db.deleteFrom('group_members').where('group_key', '=', groupKey).execute();
  await db.deleteFrom('role_members').where('assignee_type', '=', 'Group').where('assignee_key', '=', groupKey).execute();
  await db.deleteFrom('groups').where('group_key', '=', groupKey).execute();
}

export function listGroupMembers(db: Executor, groupKey: string): Promise<GroupMemberRow[]> {
  return db.selectFrom('group_members').selectAll().where('group_key', '=', groupKey).orderBy('member_key').execute();
}

export function findGroupMember(db: Executor, groupKey: string, memberKey: string): Promise<GroupMemberRow | undefined> {
  return db.selectFrom('group_members').selectAll().where('group_key', '=', groupKey).where('member_key', '=', memberKey).executeTakeFirst();
}

export async function insertGroupMember(db: Executor, row: Insertable<GroupMembersTable>): Promise<void> {
  await db.insertInto('group_members').values(row).execute();
}

export async function deleteGroupMember(db: Executor, groupKey: string, memberKey: string): Promise<void> {
  await db.deleteFrom('group_members').where('group_key', '=', groupKey).where('member_key', '=', memberKey).execute();
}

/** The users a group stands for: its enabled members, when the group itself is enabled. */
export async function activeMembersOfGroup(db: Executor, groupKey: string): Promise<{ key: string; name: string }[]> {
  const rows = await db
    .selectFrom('group_members as m')
    .innerJoin('groups as g', 'g.group_key', 'm.group_key')
    .select(['m.member_key', 'm.member_name'])
    .where('m.group_key', '=', groupKey)
    .where('m.enabled', '=', 1)
    .where('g.enabled', '=', 1)
    .orderBy('m.member_key')
    .execute();
  return rows.map((r) => ({ key: r.member_key, name: r.member_name }));
}
