import type { Insertable, Selectable, Updateable } from 'kysely';
import { reusableQuery, reusableQueryPerLimit } from '../reusableQuery.ts';
import type { Executor } from '../Store.ts';
import type { UsersTable } from '../schema.ts';
import { forgetEveryPoolFlag } from './workItemFlags.ts';
import { capsOf } from '../dialect.ts';
import { registeredUserPageSql } from '../wireJson.ts';

export type UserRow = Selectable<UsersTable>;

export async function findUser(db: Executor, userKey: string): Promise<UserRow | undefined> {
  return (await selectUser(db, userKey))[0];
}

// Compiled once (reusableQuery.ts): every assignment looks its user up.
const selectUser = reusableQuery((db, userKey: string) => db.selectFrom('users').selectAll().where('user_key', '=', userKey));

export function listUsers(db: Executor): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('user_key').execute();
}

// Compiled once (reusableQuery.ts): GetRegisterUsers.
const selectUsersAfter = reusableQueryPerLimit((db, limit, afterKey: string) =>
  db.selectFrom('users').selectAll().where('user_key', '>', afterKey).orderBy('user_key').limit(limit),
);

/** Users in pages, for streaming large lists. */
export function listUsersAfter(db: Executor, afterKey: string, limit: number): Promise<UserRow[]> {
  return selectUsersAfter(db, limit, afterKey);
}

/** A page of GetRegisterUsers' records as JSON text (wireJson.ts registeredUserPageSql). */
export interface UserPageJson {
  /** The records joined by commas; null for an empty page. */
  json: string | null;
  /** The page's last user key, to ask for the next page after it. */
  last: string | null;
  n: number;
}

// Compiled once per database and page size (reusableQuery.ts): GetRegisterUsers.
const selectUserPageJson = reusableQueryPerLimit((db, limit, afterKey: string) => ({
  compile: () => registeredUserPageSql(capsOf(db)?.name === 'postgres' ? 'postgres' : 'sqlite', afterKey, limit).compile(db),
}));

/** The records of at most `limit` users after `afterKey`, in key order, as one JSON text. */
export async function listUserPageJson(db: Executor, afterKey: string, limit: number): Promise<UserPageJson> {
  const [row] = await selectUserPageJson(db, limit, afterKey);
  return { json: row?.json ?? null, last: row?.last ?? null, n: Number(row?.n ?? 0) };
}

export async function insertUser(db: Executor, row: Insertable<UsersTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function updateUser(db: Executor, userKey: string, patch: Updateable<UsersTable>): Promise<void> {
  await db.updateTable('users').set(patch).where('user_key', '=', userKey).execute();
}

export async function deleteUser(db: Executor, userKey: string): Promise<void> {
  await db.deleteFrom('work_item_pool').where('member_key', '=', userKey).execute();
  forgetEveryPoolFlag(db);
  await db.deleteFrom('group_members').where('member_key', '=', userKey).execute();
  await db.deleteFrom('role_members').where('assignee_key', '=', userKey).where('assignee_type', '=', 'User').execute();
  await db.deleteFrom('credentials').where('user_key', '=', userKey).execute();
  await db.deleteFrom('users').where('user_key', '=', userKey).execute();
}

export async function countUsers(db: Executor): Promise<number> {
  const r = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

export function findPasswordHash(db: Executor, userKey: string): Promise<{ password_hash: string } | undefined> {
  return db.selectFrom('credentials').select('password_hash').where('user_key', '=', userKey).executeTakeFirst();
}

export async function setPasswordHash(db: Executor, userKey: string, hash: string, now: number): Promise<void> {
  await db
    .insertInto('credentials')
    .values({ user_key: userKey, password_hash: hash, updated_date: now })
    .onConflict((oc) => oc.column('user_key').doUpdateSet({ password_hash: hash, updated_date: now }))
    .execute();
}
