/** Admin area: groups and group membership. */
import type { Operation } from '../Operation.ts';
import { bool, object, str, strOrNull } from '../schemas.ts';

const groupBody = object(
  { GroupName: str(256), Description: strOrNull(4000), ResponsibleUser: strOrNull(256, 'DOMAIN\\user'), Enabled: bool() },
  ['GroupName'],
);

const groupMemberBody = object(
  { GroupName: str(256), UserName: str(256, 'DOMAIN\\user'), Description: strOrNull(4000), ClientData: strOrNull(64 * 1024), Enabled: bool() },
  ['GroupName', 'UserName'],
);

export const groupOperations: Operation[] = [
  {
    name: 'AddGroup', area: 'Admin', method: 'POST', body: groupBody, reply: 'bare',
    summary: 'Create a group.',
    run: ({ engine, caller, body }) => engine.addGroup(caller, body),
  },
  {
    name: 'GetGroup', area: 'Admin', method: 'GET', params: ['groupName'], reply: 'wrapped',
    summary: 'One group.',
    run: ({ engine, caller, params }) => engine.getGroup(caller, params.groupName),
  },
  {
    name: 'GetGroups', area: 'Admin', method: 'GET', reply: 'wrapped',
    summary: 'Every group.',
    run: ({ engine, caller }) => engine.getGroups(caller),
  },
  {
    name: 'UpdateGroup', area: 'Admin', method: 'POST', body: groupBody, reply: 'bare',
    summary: 'Update the description, responsible user or enabled flag of a group.',
    run: ({ engine, caller, body }) => engine.updateGroup(caller, body),
  },
  {
    name: 'RemoveGroup', area: 'Admin', method: 'POST', params: ['groupName'], reply: 'empty',
    summary: 'Remove a group with its memberships.',
    run: ({ engine, caller, params }) => engine.removeGroup(caller, params.groupName),
  },
  {
    name: 'AddGroupMember', area: 'Admin', method: 'POST', body: groupMemberBody, reply: 'bare',
    summary: 'Add a user to a group.',
    run: ({ engine, caller, body }) => engine.addGroupMember(caller, body),
  },
  {
    name: 'GetGroupMembers', area: 'Admin', method: 'GET', params: ['groupName'], reply: 'wrapped',
    summary: 'The members of a group.',
    run: ({ engine, caller, params }) => engine.getGroupMembers(caller, params.groupName),
  },
  {
    name: 'RemoveGroupMember', area: 'Admin', method: 'POST', body: object({ GroupName: str(256), UserName: str(256, 'DOMAIN\\user') }, ['GroupName', 'UserName']), reply: 'empty',
    summary: 'Remove a user from a group.',
    run: ({ engine, caller, body }) => engine.removeGroupMember(caller, body),
  },
];
