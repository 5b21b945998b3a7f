/**
 * Wire records written as JSON text by SQLite (`json_object`), for the reads answered at once on
 * SQLite (ReusableQuery.now; the engine's `…Now` reads). Built in JavaScript, a record is a row of
 * 12-28 values (each text a new JavaScript string), an object made of it, and `JSON.stringify` of
 * that; here it is one string per record. A GetActivityInst answer: 3.5 → 1.8 µs in a loop, ten
 * activities for GetActivityInstsByPIID 24 → 12 µs; on the server, the instructions per request of
 * the seventeenth round in docs/performance-log.md.
 *
 * Each expression mirrors a mapping of engine/records.ts field for field (same names, same order,
 * dates as `/Date(ms+0000)/` with a missing date as MIN_DATE_MS, flags as true/false);
 * test/store/wireJson.test.ts holds the two equal, byte for byte, on random rows (fast-check),
 * text with quotes, control characters and any Unicode included. SQLite only, except
 * GetRegisterUsers' pages (registeredUserPageSql, below), which PostgreSQL writes too
 * (test/store/userPageJson.test.ts, on each dialect); PostgreSQL's other reads are awaited and
 * keep the JavaScript mapping.
 */
import { sql, type AliasedRawBuilder, type RawBuilder } from 'kysely';
import { MIN_DATE_MS } from '../domain/dates.ts';

/** `/Date(ms+0000)/` of an integer-millisecond column, as domain/dates.ts formatDate writes it. */
function date(column: string): string {
  return `'/Date(' || coalesce(cast(floor(${column}) as integer), ${MIN_DATE_MS}) || '+0000)/'`;
}

/**
 * JSON true when `condition` holds, false otherwise (also when it is NULL). `json('true')` has
 * constant arguments, so SQLite works it out once per statement, not once per row as
 * `json(iif(…, 'true', 'false'))` did (GetActivityInstsByPIID's ten rows: 12.9 → 12.2 µs in a loop).
 */
function flag(condition: string): string {
  return `iif(${condition}, json('true'), json('false'))`;
}

function object(fields: [string, string][]): string {
  return `json_object(${fields.map(([name, value]) => `'${name}', ${value}`).join(', ')})`;
}

/** engine/records.ts toActivityInstance, over `activity_instances`. */
const ACTIVITY_INSTANCE = object([
  ['CompletedDate', date('completed_date')],
  ['DisplayName', 'display_name'],
  ['DueDate', date('due_date')],
  ['ID', 'id'],
  ['InStack', flag('in_stack = 1')],
  ['Name', 'name'],
  ['Pending', flag('pending = 1')],
  ['ProcInstID', 'proc_inst_id'],
  ['Session', 'session'],
  ['StartedDate', date('started_date')],
  ['TokenPos', object([['Value', 'token_pos']])],
  ['Tokens', 'tokens'],
]);

/** engine/records.ts toWorkItem, over `work_items as w` left-joined to `process_instances as p`. */
const WORK_ITEM = object([
  ['ActivatedDate', date('w.activated_date')],
  ['ActivityInstID', 'w.activity_inst_id'],
  ['ApplName', "''"],
  ['AssignedDate', date('w.assigned_date')],
  ['CancelledDate', date('w.cancelled_date')],
  ['ClientData', 'w.client_data'],
  ['CompletedDate', date('w.completed_date')],
  ['CreatedDate', date('w.created_date')],
  ['DefName', "coalesce(p.def_name, '')"],
  ['DisplayName', 'w.display_name'],
  ['DueDate', date('w.due_date')],
  ['LastModifiedBy', 'w.last_modified_by'],
  ['LastModifiedDate', date('w.last_modified_date')],
  ['Name', 'w.name'],
  ['OriginalUserID', 'w.original_user_id'],
  ['Pending', flag("p.status = 'Suspended'")],
  ['PoolInfo', 'w.pool_info'],
  ['Priority', 'w.priority'],
  ['ProcDefID', "coalesce(p.def_id, '')"],
  ['ProcInstID', 'w.proc_inst_id'],
  ['ProcInstName', "coalesce(p.proc_inst_name, '')"],
  ['Session', 'w.session'],
  ['SourceWorkItemID', 'w.source_work_item_id'],
  ['Status', 'w.status'],
  ['UserID', 'w.user_id'],
  ['WaitWorkPerformed', flag('w.wait_work_performed = 1')],
  ['WorkItemID', 'w.work_item_id'],
  ['WorkObjectID', "coalesce(p.work_object_id, '')"],
]);

/** The ActivityInstance record of the row, as JSON text, selected `as json`. */
export const activityInstanceJson = (): AliasedRawBuilder<string, 'json'> => sql<string>`${sql.raw(ACTIVITY_INSTANCE)}`.as('json');

/**
 * GetActivityInstsByPIID's answer: the ActivityInstance records of an instance's activity
 * instances as one JSON array text, in `ord` order (`[]` for none), column `json`. One row and
 * one string instead of one per activity.
 *
 * The order comes from the index scan, not from `json_group_array(… ORDER BY ord)`: that form
 * sorts its input again (SQLite 3.53 builds a sorter even over rows already in order), which cost
 * as much as one string per activity saved (`bench instructions` per request: 322.5 thousand as
 * rows, 321.1 with the ORDER BY, 288.3 without; in a loop, ten activities 22.5, 19.0 and 15.5 µs). An
 * aggregate without GROUP BY takes its rows in the order its one scan reads them, and `indexed by`
 * pins that scan to (proc_inst_id, ord); a subquery with ORDER BY would keep the order but loses
 * json_object's JSON subtype, so every record would come out quoted as a string.
 * test/store/wireJson.test.ts inserts activities out of `ord` order and holds this equal to the
 * ordered read.
 */
export function activityInstanceListSql(procInstId: string): RawBuilder<{ json: string }> {
  return sql<{ json: string }>`select json_group_array(${sql.raw(ACTIVITY_INSTANCE)}) as json from activity_instances indexed by activity_instances_proc where proc_inst_id = ${procInstId}`;
}

/** The WorkItem record of the row (`w`, `p`), as JSON text, selected `as json`. */
export const workItemJson = (): AliasedRawBuilder<string, 'json'> => sql<string>`${sql.raw(WORK_ITEM)}`.as('json');

/**
 * GetWorkListByUserID's answer as one JSON array text (`[]` for none), column `json`: the items
 * assigned to `userKey` in one of `statuses`, and, given `memberKey` (the same user, when New is
 * asked for), the `New` items of pools that user is in; each once (`in` keeps one of each),
 * ordered by id. It binds, in order, the user's key, the statuses and `memberKey`.
 *
 * Unlike the activity list above, this one has to be sorted (two sources merged), so the ORDER BY
 * inside the aggregate costs nothing a sort would not. Ids are upper-case hexadecimal, so SQLite's
 * byte order is JavaScript's string order (the awaited read sorts with `<`). Measured
 * (docs/performance-log.md, twenty-fourth round): 513 → 335 thousand instructions per request for a
 * list of three against the two statements and the records built in JavaScript. The `IN` list and
 * the ordered aggregate each open a temporary b-tree (~28 thousand of the 335); in a loop, the ids
 * as a UNION ALL in FROM (one b-tree) or rows joined in JavaScript saved 1-2 µs of ~24: kept as is.
 */
export function workListSql(userKey: string, statuses: readonly string[], memberKey?: string): RawBuilder<{ json: string }> {
  const own = sql`select work_item_id from work_items where user_key = ${userKey} and status in (${sql.join(statuses)})`;
  const pooled =
    memberKey === undefined
      ? sql``
      : sql` union all select m.work_item_id from work_item_pool as m join work_items as x on x.work_item_id = m.work_item_id where m.member_key = ${memberKey} and x.status = 'New'`;
  return sql<{ json: string }>`select json_group_array(${sql.raw(WORK_ITEM)} order by w.work_item_id) as json from work_items as w left join process_instances as p on p.proc_inst_id = w.proc_inst_id where w.work_item_id in (${own}${pooled})`;
}

/** engine/records.ts toRegisteredUser, over `users`: SQLite's `json_object`. */
const REGISTERED_USER = object([
  ['Department', 'department'],
  ['Disabled', flag('disabled = 1')],
  ['EmailAddress', 'email_address'],
  ['FullName', 'full_name'],
  ['Locale', 'locale'],
  ['Manager', 'manager'],
  ['OnlineContact', 'online_contact'],
  ['RefID', 'ref_id'],
  ['RegisteredDate', date('registered_date')],
  ['TimeZone', 'time_zone'],
  ['Title', 'title'],
  ['UALExpirationDate', date('ual_expiration_date')],
  ['UALNeverExpires', flag('ual_never_expires = 1')],
  ['UserName', 'user_name'],
]);

/**
 * The same record written by PostgreSQL. Its `json_build_object` puts a space on each side of
 * every colon and after every comma, so the text is put together here instead: each string value
 * through `to_json(…)::text`, which escapes what JSON.stringify escapes (quote, backslash, the
 * control characters; those without a short form as lower-case `\u00xx`) and nothing else; dates
 * as formatDate writes them (the columns are whole milliseconds, `bigint`); flags as true/false.
 */
const PG_REGISTERED_USER = (() => {
  const parts: [string, string][] = [
    ['Department', `to_json(department)::text`],
    ['Disabled', `case when disabled = 1 then 'true' else 'false' end`],
    ['EmailAddress', `to_json(email_address)::text`],
    ['FullName', `to_json(full_name)::text`],
    ['Locale', `to_json(locale)::text`],
    ['Manager', `to_json(manager)::text`],
    ['OnlineContact', `to_json(online_contact)::text`],
    ['RefID', `to_json(ref_id)::text`],
    ['RegisteredDate', `'"/Date(' || coalesce(registered_date::text, '${MIN_DATE_MS}') || '+0000)/"'`],
    ['TimeZone', `to_json(time_zone)::text`],
    ['Title', `to_json(title)::text`],
    ['UALExpirationDate', `'"/Date(' || coalesce(ual_expiration_date::text, '${MIN_DATE_MS}') || '+0000)/"'`],
    ['UALNeverExpires', `case when ual_never_expires = 1 then 'true' else 'false' end`],
    ['UserName', `to_json(user_name)::text`],
  ];
  return parts.map(([name, value], i) => `'${i === 0 ? '{' : ','}"${name}":' || ${value}`).join(' || ') + ` || '}'`;
})();

/**
 * A page of GetRegisterUsers as JSON text: the RegisteredUser records of at most `limit` users
 * after `afterKey` in key order, joined by commas (no brackets: the answer's writer puts pages
 * together), with the last key of the page and the page's length (`json` and `last` null for an
 * empty page). One string per page instead of a row object and a record per user (~1,700 values
 * for a page of 100). `limit` is the code's own (a literal in the text, as reusableQueryPerLimit
 * writes it).
 */
export function registeredUserPageSql(dialect: 'sqlite' | 'postgres', afterKey: string, limit: RawBuilder<number>): RawBuilder<{ json: string | null; last: string | null; n: number }> {
  const record = sql.raw(dialect === 'sqlite' ? REGISTERED_USER : PG_REGISTERED_USER);
  const joined = dialect === 'sqlite' ? sql`group_concat(j, ',' order by k)` : sql`string_agg(j, ',' order by k)`;
  return sql<{ json: string | null; last: string | null; n: number }>`select ${joined} as json, max(k) as last, cast(count(*) as integer) as n from (select ${record} as j, user_key as k from users where user_key > ${afterKey} order by user_key limit ${limit}) as page`;
}
