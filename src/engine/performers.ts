/**
 * Resolve a human task's performers (MODEL.md "People on a task") to user names at the moment the
 * task is reached: FEEL expressions over the process attributes, group pools expanded to the
 * group's enabled members, and role pools to the role's users and the members of its groups.
 */
import { WaymarkError } from '../domain/errors.ts';
import { parseUserName, userKey } from '../domain/userNames.ts';
import type { Performers } from '../model/ProcessModel.ts';
import { listAttributes } from '../store/queries/attributes.ts';
import { activeMembersOfGroup } from '../store/queries/groups.ts';
import { listRoleMembers } from '../store/queries/roles.ts';
import { bareName, evaluateFeel } from './feel.ts';
import type { RunContext } from './RunContext.ts';

export interface ResolvedPerformers {
  assignee?: { name: string; key: string };
  pool: { name: string; key: string }[];
}

export async function resolvePerformers(rc: RunContext, taskId: string, p: Performers): Promise<ResolvedPerformers> {
  const context = await contextFor(rc, [p.assignee ?? '', ...p.candidateUsers, ...p.candidateGroups, ...p.candidateRoles]);
  if (p.assignee) {
    const names = namesOf(taskId, p.assignee, context);
    if (names.length !== 1) throw nobody(taskId, `its assignee ${p.assignee} gave ${names.length} users`);
    return { assignee: named(taskId, names[0]), pool: [] };
  }
  const pool = new Map<string, { name: string; key: string }>();
  for (const value of p.candidateUsers) for (const n of namesOf(taskId, value, context)) add(pool, named(taskId, n));
  for (const value of p.candidateGroups) {
    for (const groupName of namesOf(taskId, value, context, false)) {
      for (const m of await activeMembersOfGroup(rc.trx, groupName.toLowerCase())) add(pool, m);
    }
  }
  for (const value of p.candidateRoles) {
    for (const roleName of namesOf(taskId, value, context, false)) {
      for (const m of await listRoleMembers(rc.trx, roleName.toLowerCase())) {
        if (m.assignee_type === 'User') add(pool, { name: m.assignee, key: m.assignee_key });
        else if (m.assignee_type === 'Group') for (const g of await activeMembersOfGroup(rc.trx, m.assignee_key)) add(pool, g);
      }
    }
  }
  if (pool.size === 0) throw nobody(taskId, 'its pool is empty');
  return { pool: [...pool.values()] };
}

/** Process attributes as FEEL sees them: numbers and booleans where the string parses as one. */
export async function attributeContext(rc: RunContext): Promise<Record<string, unknown>> {
  const ctx: Record<string, unknown> = Object.create(null);
  for (const a of await listAttributes(rc.trx, rc.instance.custom_id)) ctx[a.name] = typed(a.value);
  return withInstanceNames(rc, ctx);
}

/** The names every expression sees, set after the attributes so that they win over them. */
const INSTANCE_NAMES = new Set(['initiator', 'procInstID', 'procInstName']);

function withInstanceNames(rc: RunContext, ctx: Record<string, unknown>): Record<string, unknown> {
  ctx.initiator = rc.instance.initiator;
  ctx.procInstID = rc.instance.proc_inst_id;
  ctx.procInstName = rc.instance.proc_inst_name;
  return ctx;
}

/**
 * The context the performer values need: without reading the attributes when every value is a
 * literal name or one of the instance's own names (the common `=initiator` saves a query per task).
 */
async function contextFor(rc: RunContext, values: string[]): Promise<Record<string, unknown>> {
  const needsAttributes = values.some((v) => {
    if (!v.startsWith('=')) return false;
    const name = bareName(v.slice(1));
    return name === null || !INSTANCE_NAMES.has(name);
  });
  return needsAttributes ? attributeContext(rc) : withInstanceNames(rc, Object.create(null));
}

function typed(value: string): unknown {
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return value;
}

function namesOf(taskId: string, value: string, context: Record<string, unknown>, users = true): string[] {
  if (!value.startsWith('=')) return [value];
  let result: unknown;
  try {
    result = evaluateFeel(value.slice(1), context);
  } catch (e) {
    throw nobody(taskId, `the expression ${value} failed: ${(e as Error).message}`);
  }
  const list = Array.isArray(result) ? result : typeof result === 'string' ? result.split(',') : [];
  const names = list.map((v) => String(v).trim()).filter((v) => v !== '');
  if (users) for (const n of names) named(taskId, n);
  return names;
}

function named(taskId: string, name: string): { name: string; key: string } {
  const parsed = parseUserName(name);
  if (!parsed) throw nobody(taskId, `"${name}" is not a user name of the form DOMAIN\\user`);
  return { name: parsed.full, key: userKey(parsed.full) };
}

function add(pool: Map<string, { name: string; key: string }>, m: { name: string; key: string }): void {
  if (!pool.has(m.key)) pool.set(m.key, m);
}

function nobody(taskId: string, why: string): WaymarkError {
  return new WaymarkError('NoPerformer', `Task ${taskId} cannot be given to anyone: ${why}.`);
}
