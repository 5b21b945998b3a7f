/** Registered users: RegisterUser, UpdateRegisterUser, UnregisterUser, GetRegisterUser(s), GetAccessRights. */
import { parseDate } from '../../domain/dates.ts';
import { WaymarkError } from '../../domain/errors.ts';
import { checkPasswordRules, hashPassword } from '../../domain/passwords.ts';
import { countUserMembers, isUserInRole } from '../../store/queries/roles.ts';
import { getSetting } from '../../store/queries/settings.ts';
import { deleteUser, findUser, insertUser, listUserPageJson, setPasswordHash, updateUser, type UserRow } from '../../store/queries/users.ts';
import { JsonText } from '../../domain/jsonText.ts';
import type { Executor } from '../../store/Store.ts';
import { authorize, type Caller } from '../accessPolicy.ts';
import { EPOCH_KEY, type Authenticator } from '../Authenticator.ts';
import type { EngineDeps } from '../context.ts';
import { toRegisteredUser, type WireRecord } from '../records.ts';
import { optionalBoolean, optionalString, requireUserName } from '../validate.ts';
import { auditAdmin } from './adminAudit.ts';
import { ADMINISTRATORS_KEY } from './roleAdmin.ts';

export interface UserProfileInput {
  UserName?: unknown;
  FullName?: unknown;
  EmailAddress?: unknown;
  EMailAddress?: unknown;
  Department?: unknown;
  Title?: unknown;
  Manager?: unknown;
  Locale?: unknown;
  TimeZone?: unknown;
  OnlineContact?: unknown;
  RefID?: unknown;
  RegisteredDate?: unknown;
  UALExpirationDate?: unknown;
  UALNeverExpires?: unknown;
  Password?: unknown;
}

type ProfileFields = Partial<Omit<UserRow, 'user_key' | 'user_name' | 'registered_date' | 'disabled'>> & { registered_date?: number };

export async function registerUser(deps: EngineDeps, auth: Authenticator, caller: Caller, input: UserProfileInput): Promise<void> {
  await authorize(caller, 'RegisterUser');
  const user = requireUserName(input.UserName, 'UserName');
  const fields = profileFields(input);
  const hash = await passwordHashOf(input.Password, user.name);
  await deps.store.grouped(async (trx) => {
    const existing = await findUser(trx, user.key);
    if (existing) throw new WaymarkError('DuplicateUser', `User ${existing.user_name} is already registered.`);
    const now = deps.now();
    await insertUser(trx, {
      user_key: user.key,
      user_name: user.name,
      ual_never_expires: 1,
      disabled: 0,
      ...fields,
      registered_date: fields.registered_date ?? now,
    });
    if (hash) await setPasswordHash(trx, user.key, hash, now);
    await auditAdmin(trx, caller, now, user.name, 'Register user', `${user.name} registered${hash ? ' with a password' : ''}.`);
    await auth.securityChanged(trx);
  });
}

export async function updateRegisterUser(deps: EngineDeps, auth: Authenticator, caller: Caller, input: UserProfileInput): Promise<void> {
  const user = requireUserName(input.UserName, 'UserName');
  await authorize(caller, 'UpdateRegisterUser', { self: user.key === caller.userKey });
  const fields = profileFields(input);
  const hash = await passwordHashOf(input.Password, user.name);
  await deps.store.grouped(async (trx) => {
    await existingUser(trx, user.key, user.name);
    const now = deps.now();
    if (Object.keys(fields).length > 0) await updateUser(trx, user.key, fields);
    if (hash) await setPasswordHash(trx, user.key, hash, now);
    const what = [Object.keys(fields).length > 0 ? 'profile' : '', hash ? 'password' : ''].filter(Boolean).join(' and ') || 'nothing';
    await auditAdmin(trx, caller, now, user.name, 'Update user', `${user.name}: ${what} changed.`);
    await auth.securityChanged(trx);
  });
}

export async function unregisterUser(deps: EngineDeps, auth: Authenticator, caller: Caller, userNameIn: unknown): Promise<void> {
  await authorize(caller, 'UnregisterUser');
  const user = requireUserName(userNameIn, 'userName');
  await deps.store.grouped(async (trx) => {
    await existingUser(trx, user.key, user.name);
    if ((await isUserInRole(trx, ADMINISTRATORS_KEY, user.key)) && (await countUserMembers(trx, ADMINISTRATORS_KEY)) <= 1) {
      throw new WaymarkError('LastAdministrator', `${user.name} is the last member of Administrators and cannot be unregistered.`);
    }
    await deleteUser(trx, user.key);
    await auditAdmin(trx, caller, deps.now(), user.name, 'Unregister user', `${user.name} unregistered.`);
    await auth.securityChanged(trx);
  });
}

export async function getRegisterUser(deps: EngineDeps, caller: Caller, userNameIn: unknown): Promise<WireRecord> {
  await authorize(caller, 'GetRegisterUser');
  const user = requireUserName(userNameIn, 'userName');
  return toRegisteredUser(await existingUser(deps.store.db, user.key, user.name));
}

/**
 * A token that changes whenever GetRegisterUsers' answer may change: the stored security epoch,
 * which every change to users bumps in the transaction that makes it (registerUser,
 * updateRegisterUser, unregisterUser, the first administrator). Read from the database, so it
 * holds across nodes and processes, and read before the list: a change committed in between
 * gives a newer list under the older token, which the next call then replaces, never the
 * reverse. The caller's right is checked first, as for the list itself.
 */
export async function registeredUsersVersion(deps: EngineDeps, caller: Caller): Promise<string> {
  await authorize(caller, 'GetRegisterUsers');
  return (await getSetting(deps.store.db, EPOCH_KEY)) ?? '0';
}

/**
 * Every registered user, in pages so that a large directory is never held in memory at once.
 * Each page comes from the database as one JSON text (store/wireJson.ts registeredUserPageSql,
 * held equal to JSON.stringify of toRegisteredUser by test/store/userPageJson.test.ts) and is
 * yielded as a single JsonText item that the answer's writer puts in as it is: no row objects, no
 * records. With 10,000 users and ten clients: 21-24 → 38-44 lists/s on SQLite, 13.8 → 16.3-18.8
 * on PostgreSQL (docs/performance-log.md, thirty-first round). Pages of 100 (~31 KB of answer): a
 * long list is written a piece per turn of the event loop (api/listStream.ts), and with ten
 * clients reading 10,000 users the longest event-loop delay was 23-25 ms with pages of 100
 * against 37-47 ms with 500, at the same lists per second (bench users10k, 2026-11-22).
 */
export async function* getRegisterUsers(deps: EngineDeps, caller: Caller, pageSize = 100): AsyncGenerator<JsonText[]> {
  await authorize(caller, 'GetRegisterUsers');
  let after = '';
  for (;;) {
    const page = await listUserPageJson(deps.store.db, after, pageSize);
    if (page.n === 0 || page.json === null || page.last === null) return;
    after = page.last;
    yield [new JsonText(page.json)];
    if (page.n < pageSize) return;
  }
}

export async function getAccessRights(deps: EngineDeps, auth: Authenticator, caller: Caller, userNameIn: unknown): Promise<number[]> {
  const user = userNameIn === undefined || userNameIn === null ? { name: caller.userName, key: caller.userKey } : requireUserName(userNameIn, 'userName');
  await authorize(caller, 'GetAccessRights', { self: user.key === caller.userKey });
  await existingUser(deps.store.db, user.key, user.name);
  return [...(await auth.rightsOf(deps.store.db, user.key))].sort((a, b) => a - b);
}

export async function existingUser(db: Executor, key: string, name: string): Promise<UserRow> {
  const row = await findUser(db, key);
  if (!row) throw new WaymarkError('UserNotFound', `User ${name} is not registered.`);
  return row;
}

async function passwordHashOf(password: unknown, userName: string): Promise<string | null> {
  if (password === undefined || password === null) return null;
  const problem = checkPasswordRules(password, userName);
  if (problem) throw new WaymarkError('InvalidPassword', problem);
  return hashPassword(password as string);
}

const TEXT_FIELDS = [
  ['FullName', 'full_name'],
  ['Department', 'department'],
  ['Title', 'title'],
  ['Manager', 'manager'],
  ['Locale', 'locale'],
  ['TimeZone', 'time_zone'],
  ['OnlineContact', 'online_contact'],
  ['RefID', 'ref_id'],
] as const;

/** The profile properties present in the input (absent ones are left unchanged on update). */
function profileFields(input: UserProfileInput): ProfileFields {
  const out: ProfileFields = {};
  for (const [prop, column] of TEXT_FIELDS) {
    const v = optionalString(input[prop], prop);
    if (v !== null) out[column] = v;
  }
  const email = optionalString(input.EmailAddress ?? input.EMailAddress, 'EmailAddress');
  if (email !== null) out.email_address = email;
  const registered = optionalDate(input.RegisteredDate, 'RegisteredDate');
  if (registered !== null) out.registered_date = registered;
  const expires = optionalDate(input.UALExpirationDate, 'UALExpirationDate');
  if (expires !== null) out.ual_expiration_date = expires;
  if (input.UALNeverExpires !== undefined && input.UALNeverExpires !== null) {
    out.ual_never_expires = optionalBoolean(input.UALNeverExpires, 'UALNeverExpires', true) ? 1 : 0;
  }
  return out;
}

function optionalDate(value: unknown, field: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  const ms = parseDate(value);
  if (ms === null) throw new WaymarkError('InvalidDate', `${field} must be a date such as "/Date(1767225600000)/" or "2026-01-01T00:00:00Z".`);
  return ms;
}
