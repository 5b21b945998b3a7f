/**
 * Who may call what: one table, read by the engine's checks and by the docs.
 * Rights are indexes of the WFAccessRights enumeration (src/domain/rights.ts).
 */
import { ACCESS_RIGHT_DISPLAY_NAMES, Right, rightName } from '../domain/rights.ts';
import { WaymarkError } from '../domain/errors.ts';

/** Ways to be allowed without holding the right. */
export type Alternative =
  | 'assignee' // the work item's current assignee
  | 'poolMember' // a member of the work item's pool
  | 'participant' // initiator, or past/present assignee or pool member of the instance
  | 'sender' // the user who sent the event
  | 'self' // the user named in the request is the caller
  | 'ownRows'; // anyone may call; without the right the answer holds only the rows they take part in

export interface AccessRule {
  /** The right that allows the call. Absent: any authenticated user. */
  right?: number;
  alternatives?: Alternative[];
}

export const ACCESS_POLICY = {
  CreateLinkedWorkItem: { right: Right.CreateWorkItem },
  UndoAssignWorkItem: { right: Right.ReassignWorkItem, alternatives: ['assignee'] },
  CancelProcInst: { right: Right.CancelProcessInstance },
  GetActivityInstsByPIID: { right: Right.ViewProcessDetails, alternatives: ['participant'] },
  GetActivityInst: { right: Right.ViewProcessDetails, alternatives: ['participant'] },
  GetRegisterUsers: {},
  UpdateRole: { right: Right.AddModifyRole },

  CreateProcDef: { right: Right.AddProcessTemplate },
  ReleaseProcDef: { right: Right.ReleaseProcessTemplate },
  GetProcDefs: {},
  GetReleasedPID: {},
  GetReleasedProcDefs: {},
  GetUUID: {},
  CreateProcInst: { right: Right.InitiateProcessInstance },
  GetProcInst: { right: Right.ViewProcessDetails, alternatives: ['participant'] },
  GetWorkItem: { right: Right.ViewProcessDetails, alternatives: ['participant'] },
  GetWorkListByUserID: { right: Right.EnableViewAllTasks, alternatives: ['self'] },
  AssignWorkItem: { right: Right.ReassignWorkItem, alternatives: ['poolMember'] },
  CompleteWorkItem: { alternatives: ['assignee'] },
  GetEvent: { right: Right.ViewProcessDetails, alternatives: ['sender', 'participant'] },
  GetEventsByProcInstID: { right: Right.ViewProcessDetails, alternatives: ['participant'] },
  GetProcedure: { right: Right.ViewProcessDetails },
  QueryProcedureList: { right: Right.ViewProcessDetails },
  CompleteProcedure: { right: Right.CompleteProcedure },

  RegisterUser: { right: Right.AddModifyUser },
  UpdateRegisterUser: { right: Right.AddModifyUser, alternatives: ['self'] },
  GetRegisterUser: {},
  UnregisterUser: { right: Right.RemoveUser },
  AddRole: { right: Right.AddModifyRole },
  GetRole: {},
  GetRoles: {},
  RemoveRole: { right: Right.RemoveRole },
  AddRoleMember: { right: Right.AddModifyRole },
  RemoveRoleMember: { right: Right.AddModifyRole },
  GetAccessRights: { right: Right.AddModifyUser, alternatives: ['self'] },
  GetAccessRightNames: {},

  QueryWorkList: { right: Right.EnableViewAllTasks, alternatives: ['ownRows'] },
  QueryWorkListUsingSQL: { right: Right.EnableViewAllTasks, alternatives: ['ownRows'] },
  QueryProcInsts: { right: Right.ViewProcessDetails, alternatives: ['ownRows'] },
  QueryProcInstsUsingSQL: { right: Right.ViewProcessDetails, alternatives: ['ownRows'] },
  QueryActivityInsts: { right: Right.ViewProcessDetails, alternatives: ['ownRows'] },
  QueryRegisterUsersUsingSQL: {},
  QueryAuditTrail: { right: Right.ViewProcessDetails },

  SuspendProcInst: { right: Right.SuspendResumeProcessInstance },
  ResumeProcInst: { right: Right.SuspendResumeProcessInstance },
  CancelActivityInst: { right: Right.CancelWorkItem },
  RollbackProcInst: { right: Right.RollbackProcessInstance },
  GetProcInstAttrs: { right: Right.ViewProcessDetails, alternatives: ['participant'] },
  GetProcInstAttr: { right: Right.ViewProcessDetails, alternatives: ['participant'] },
  UpdateProcInst: { right: Right.ModifyCustomAttributes, alternatives: ['participant'] },
  SetCustomAttrs: { right: Right.ModifyCustomAttributes, alternatives: ['participant'] },
  GetCustomAttrsbyID: { right: Right.ViewCustomAttributes, alternatives: ['participant'] },
  RemoveCustomAttrs: { right: Right.ModifyCustomAttributes, alternatives: ['participant'] },
  ReassignWorkItem: { right: Right.ReassignWorkItem },
  CancelWorkItem: { right: Right.CancelWorkItem },
  CreateWorkItem: { right: Right.CreateWorkItem },
  ActivateWorkItem: { alternatives: ['assignee'] },
  UpdateWorkItem: { right: Right.CreateWorkItem },
  AddGroup: { right: Right.AddModifyGroup },
  GetGroup: {},
  GetGroups: {},
  UpdateGroup: { right: Right.AddModifyGroup },
  RemoveGroup: { right: Right.RemoveGroup },
  AddGroupMember: { right: Right.AddModifyGroup },
  GetGroupMembers: {},
  RemoveGroupMember: { right: Right.AddModifyGroup },
} as const satisfies Record<string, AccessRule>;

export type OperationName = keyof typeof ACCESS_POLICY;

export interface Caller {
  userName: string;
  userKey: string;
  rights: ReadonlySet<number>;
}

export type AlternativeFacts = Partial<Record<Alternative, boolean | (() => Promise<boolean>)>>;

/** A sentence naming a right, e.g. `Cancel a Process (14 CancelProcessInstance)`. */
export function describeRight(index: number): string {
  return `${ACCESS_RIGHT_DISPLAY_NAMES[index]} (${index} ${rightName(index)})`;
}

/**
 * Throws AccessDenied unless the caller holds the operation's right or one of its alternatives
 * is true. Alternatives are evaluated lazily, only when the right is missing.
 */
export async function authorize(caller: Caller, op: OperationName, facts: AlternativeFacts = {}): Promise<void> {
  const rule: AccessRule = ACCESS_POLICY[op];
  if (rule.right === undefined && !rule.alternatives) return;
  if (rule.right !== undefined && caller.rights.has(rule.right)) return;
  for (const alt of rule.alternatives ?? []) {
    const fact = facts[alt];
    if (fact === true) return;
    if (typeof fact === 'function' && (await fact())) return;
  }
  throw new WaymarkError('AccessDenied', denialSentence(caller, op, rule));
}

function denialSentence(caller: Caller, op: OperationName, rule: AccessRule): string {
  const alts = (rule.alternatives ?? []).map((a) => ALTERNATIVE_WORDS[a]);
  const needs = [rule.right !== undefined ? `the access right ${describeRight(rule.right)}` : null, ...alts].filter(Boolean);
  return `${caller.userName} may not call ${op}: it needs ${needs.join(' or ')}.`;
}

const ALTERNATIVE_WORDS: Record<Alternative, string> = {
  assignee: 'to be the work item\'s assignee',
  poolMember: 'to be in the work item\'s pool',
  participant: 'to take part in the process instance',
  sender: 'to have sent the event',
  self: 'to name yourself',
  ownRows: 'to see only the rows they take part in',
};

/** True when the caller holds the operation's right (for `ownRows` operations: sees every row). */
export function holdsRight(caller: Caller, op: OperationName): boolean {
  const rule: AccessRule = ACCESS_POLICY[op];
  return rule.right !== undefined && caller.rights.has(rule.right);
}

/**
 * True when the caller is allowed without asking anything: it holds the operation's right, or one
 * of the rule's alternatives is already known true (`facts`, booleans only). False means only
 * "not known at once": the caller then awaits authorize, which decides.
 */
export function allowedAtOnce(caller: Caller, op: OperationName, facts: Partial<Record<Alternative, boolean>>): boolean {
  if (holdsRight(caller, op)) return true;
  const rule: AccessRule = ACCESS_POLICY[op];
  return (rule.alternatives ?? []).some((alt) => facts[alt] === true);
}

/** Rights a caller may grant: only those it holds (no escalation through roles). */
export function requireCanGrant(caller: Caller, rights: Iterable<number>): void {
  const missing = [...rights].filter((r) => !caller.rights.has(r));
  if (missing.length > 0) {
    throw new WaymarkError(
      'AccessDenied',
      `${caller.userName} may grant only rights it holds itself; it lacks ${missing.map(describeRight).join(', ')}.`,
    );
  }
}
