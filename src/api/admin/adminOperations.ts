/** Admin area: users, roles, rights. */
import type { Operation } from '../Operation.ts';
import { bool, dateIn, object, str, strOrNull, userNameBody } from '../schemas.ts';
import { groupOperations } from './groupOperations.ts';

const profile = {
  UserName: str(256, 'DOMAIN\\user'),
  FullName: strOrNull(256),
  EmailAddress: strOrNull(256),
  EMailAddress: strOrNull(256, 'accepted spelling of EmailAddress'),
  Department: strOrNull(256),
  Title: strOrNull(256),
  Manager: strOrNull(256),
  Locale: strOrNull(256),
  TimeZone: strOrNull(256),
  OnlineContact: strOrNull(256),
  RefID: strOrNull(256),
  RegisteredDate: dateIn(),
  UALExpirationDate: dateIn(),
  UALNeverExpires: bool(),
  Password: strOrNull(1024, 'write-only; never returned or logged'),
};

const roleBody = object(
  {
    RoleName: str(256),
    Description: strOrNull(4000),
    Enabled: bool(),
    Rights: { type: ['array', 'null'], maxItems: 200, items: { type: ['integer', 'string'] }, description: 'access-right indexes and/or WFAccessRights names' },
  },
  ['RoleName'],
);

const roleMemberBody = object(
  {
    RoleName: str(256),
    Assignee: str(256, 'DOMAIN\\user'),
    AssigneeType: strOrNull(16, 'User'),
    ClientData: strOrNull(64 * 1024),
    ObjectID: strOrNull(256),
    ObjectType: strOrNull(256),
  },
  ['RoleName', 'Assignee'],
);

export const adminOperations: Operation[] = [
  {
    name: 'GetRegisterUsers', area: 'Admin', method: 'GET', reply: 'stream',
    summary: 'The profile of every registered user.',
    run: async ({ engine, caller }) => engine.getRegisterUsers(caller),
    version: ({ engine, caller }) => engine.registeredUsersVersion(caller),
  },
  {
    name: 'UpdateRole', area: 'Admin', method: 'POST', body: roleBody, reply: 'bare',
    summary: 'Update the description, enabled flag or rights of a role.',
    run: ({ engine, caller, body }) => engine.updateRole(caller, body),
  },
  {
    name: 'RegisterUser', area: 'Admin', method: 'POST', body: object(profile, ['UserName']), reply: 'empty',
    summary: 'Register a user (optionally with a password).',
    run: ({ engine, caller, body }) => engine.registerUser(caller, body),
  },
  {
    name: 'UpdateRegisterUser', area: 'Admin', method: 'POST', body: object(profile, ['UserName']), reply: 'empty',
    summary: "Update a user's profile or password; properties left out are kept.",
    run: ({ engine, caller, body }) => engine.updateRegisterUser(caller, body),
  },
  {
    name: 'GetRegisterUser', area: 'Admin', method: 'POST', body: userNameBody, reply: 'bare',
    summary: 'One registered user.',
    run: ({ engine, caller, body }) => engine.getRegisterUser(caller, body.userName),
  },
  {
    name: 'UnregisterUser', area: 'Admin', method: 'POST', body: userNameBody, reply: 'empty',
    summary: 'Remove a user.',
    run: ({ engine, caller, body }) => engine.unregisterUser(caller, body.userName),
  },
  {
    name: 'AddRole', area: 'Admin', method: 'POST', body: roleBody, reply: 'bare',
    summary: 'Create a role.',
    run: ({ engine, caller, body }) => engine.addRole(caller, body),
  },
  {
    name: 'GetRole', area: 'Admin', method: 'GET', params: ['roleName'], reply: 'wrapped',
    summary: 'One role.',
    run: ({ engine, caller, params }) => engine.getRole(caller, params.roleName),
  },
  {
    name: 'GetRoles', area: 'Admin', method: 'GET', reply: 'wrapped',
    summary: 'Every role.',
    run: ({ engine, caller }) => engine.getRoles(caller),
  },
  {
    name: 'RemoveRole', area: 'Admin', method: 'POST', params: ['roleName'], reply: 'empty',
    summary: 'Remove a role (not the built-in Administrators).',
    run: ({ engine, caller, params }) => engine.removeRole(caller, params.roleName),
  },
  {
    name: 'AddRoleMember', area: 'Admin', method: 'POST', body: roleMemberBody, reply: 'bare',
    summary: 'Add a user to a role.',
    run: ({ engine, caller, body }) => engine.addRoleMember(caller, body),
  },
  {
    name: 'RemoveRoleMember', area: 'Admin', method: 'POST', body: roleMemberBody, reply: 'empty',
    summary: 'Remove a user from a role.',
    run: ({ engine, caller, body }) => engine.removeRoleMember(caller, body),
  },
  {
    name: 'GetAccessRights', area: 'Admin', method: 'POST', body: object({ userName: strOrNull(256, 'DOMAIN\\user; the caller when null') }), reply: 'bare',
    summary: 'The access-right indexes a user holds.',
    run: ({ engine, caller, body }) => engine.getAccessRights(caller, body.userName),
  },
  {
    name: 'GetAccessRightNames', area: 'Admin', method: 'GET', reply: 'wrapped',
    summary: 'Display names of the access rights, in index order.',
    run: ({ engine, caller }) => engine.getAccessRightNames(caller),
  },
  ...groupOperations,
];
