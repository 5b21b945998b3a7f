/**
 * Who a human task is for: humanPerformer / potentialOwner resource roles and the Camunda
 * attributes assignee / candidateUsers / candidateGroups -> Performers.
 */
import type { BpmnElement } from './bpmnElement.ts';
import { elementTypeName } from './bpmnElement.ts';
import type { AttributesOf } from './extensionAttributes.ts';
import { feelSyntaxError } from './feel.ts';
import { invalid } from './invalid.ts';
import type { Performers } from './ProcessModel.ts';

type EntryKind = 'user' | 'group' | 'role';

interface Entry {
  kind: EntryKind;
  value: string;
}

export function parsePerformers(el: BpmnElement, camunda: AttributesOf): Performers {
  const task = `Task ${el.id}`;
  const assignees: { value: string; source: string }[] = [];
  const candidates: Record<EntryKind, string[]> = { user: [], group: [], role: [] };

  for (const role of el.resources ?? []) {
    const roleName = elementTypeName(role);
    if (role.$type === 'bpmn:HumanPerformer') {
      const entries = splitList(expressionText(task, role, roleName)).map((text) => parseEntry(task, text, roleName));
      if (entries.length !== 1 || entries[0].kind !== 'user') {
        throw invalid(`${task} has a humanPerformer that does not name exactly one user; use potentialOwner for a pool of users, groups or roles.`);
      }
      assignees.push({ value: entries[0].value, source: 'humanPerformer' });
    } else if (role.$type === 'bpmn:PotentialOwner') {
      for (const text of splitList(expressionText(task, role, roleName))) {
        const entry = parseEntry(task, text, roleName);
        candidates[entry.kind].push(entry.value);
      }
    } else {
      throw invalid(`${task} has a ${roleName}, which this release does not run: use humanPerformer or potentialOwner.`);
    }
  }

  const assignee = camunda.get('assignee');
  if (assignee && assignee.value.trim() !== '') {
    assignees.push({ value: checkValue(task, 'user', assignee.value, assignee.qualifiedName), source: assignee.qualifiedName });
  }
  for (const [local, kind] of [['candidateUsers', 'user'], ['candidateGroups', 'group']] as const) {
    const attribute = camunda.get(local);
    if (!attribute) continue;
    for (const text of splitList(attribute.value)) {
      candidates[kind].push(checkValue(task, kind, text, attribute.qualifiedName));
    }
  }

  const distinct = [...new Set(assignees.map((a) => a.value))];
  if (distinct.length > 1) {
    throw invalid(
      `${task} names more than one assignee (${assignees.map((a) => `${a.value} from ${a.source}`).join(', ')}); ` +
        'a task is assigned to one user: use potentialOwner or candidate users for several.',
    );
  }
  const performers: Performers = {
    candidateUsers: unique(candidates.user),
    candidateGroups: unique(candidates.group),
    candidateRoles: unique(candidates.role),
  };
  // Both an assignee and candidates: the assignee wins (the work item starts Assigned to them),
  // and the candidates are kept so that a reassignment or release can fall back to the pool.
  if (distinct.length === 1) performers.assignee = distinct[0];

  if (!performers.assignee && !performers.candidateUsers.length && !performers.candidateGroups.length && !performers.candidateRoles.length) {
    throw invalid(
      `Task ${el.id} names nobody to do it: give the ${elementTypeName(el)} a humanPerformer or camunda:assignee, ` +
        'or a potentialOwner, camunda:candidateUsers or camunda:candidateGroups.',
    );
  }
  return performers;
}

/** The text of a resource role's resourceAssignmentExpression. */
function expressionText(task: string, role: BpmnElement, roleName: string): string {
  const body = role.resourceAssignmentExpression?.expression?.body;
  if (body === undefined || body.trim() === '') {
    const why = role.resourceRef
      ? 'refers to a resource (resourceRef), which this release does not resolve'
      : 'has no resourceAssignmentExpression text';
    throw invalid(`${task} has a ${roleName} that ${why}: write the people in its formalExpression, e.g. user(LOCAL\\bob).`);
  }
  return body;
}

/** `user(X)`, `group(X)`, `role(X)`, or a bare value (a user). */
function parseEntry(task: string, text: string, source: string): Entry {
  const wrapped = /^([A-Za-z]+)\s*\(([\s\S]*)\)$/.exec(text);
  if (wrapped && !text.startsWith('=')) {
    const kind = wrapped[1].toLowerCase();
    if (kind !== 'user' && kind !== 'group' && kind !== 'role') {
      throw invalid(`${task} has the entry "${text}" in its ${source}: write user(...), group(...) or role(...).`);
    }
    return { kind, value: checkValue(task, kind, wrapped[2], source) };
  }
  return { kind: 'user', value: checkValue(task, 'user', text, source) };
}

/** A FEEL expression (`=...`, kept verbatim), a DOMAIN\user, or a group / role name. */
function checkValue(task: string, kind: EntryKind, raw: string, source: string): string {
  const value = raw.trim();
  if (value === '') {
    throw invalid(`${task} has an empty ${kind} in its ${source}.`);
  }
  if (value.startsWith('${') || value.startsWith('#{')) {
    throw invalid(`${task} has the expression "${value}" in its ${source}: Waymark evaluates FEEL, written with a leading =, e.g. =approver.`);
  }
  if (value.startsWith('=')) {
    const error = feelSyntaxError(value.slice(1));
    if (error) throw invalid(`${task} has the expression "${value}" in its ${source}, but ${error}.`);
    return value;
  }
  if (kind === 'user' && !isDomainUser(value)) {
    throw invalid(`${task} names the user "${value}" in its ${source}, which is not of the form DOMAIN\\user.`);
  }
  return value;
}

function isDomainUser(value: string): boolean {
  const parts = value.split('\\');
  return parts.length === 2 && parts.every((part) => part !== '' && part.trim() === part);
}

/** Splits a comma list, leaving commas inside brackets or double-quoted strings (FEEL) alone. Empty entries are dropped. */
export function splitList(text: string): string[] {
  const entries: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
    else if (c === ',' && depth === 0) {
      entries.push(text.slice(start, i));
      start = i + 1;
    }
  }
  entries.push(text.slice(start));
  return entries.map((entry) => entry.trim()).filter((entry) => entry !== '');
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
