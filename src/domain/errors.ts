/**
 * Business errors: a stable `code`, an HTTP status (WIRE.md §Errors) and a sentence a person can act on.
 * Technical errors (the database is gone, a bug) are plain Errors and become 500 / 503 in the API.
 */

export const ERROR_CODES = {
  // 400
  InvalidRequest: { status: 400, title: 'The request is not valid' },
  InvalidJson: { status: 400, title: 'The body is not valid JSON' },
  InvalidId: { status: 400, title: 'An id is not 32 hexadecimal characters' },
  InvalidUserName: { status: 400, title: 'A user name is not of the form DOMAIN\\user' },
  InvalidUnit: { status: 400, title: 'Unknown time unit' },
  InvalidRight: { status: 400, title: 'Unknown access right' },
  InvalidDate: { status: 400, title: 'A date is not in a known format' },
  InvalidPassword: { status: 400, title: 'The password does not meet the password rules' },
  InvalidProcessDefinition: { status: 400, title: 'The process definition cannot be run' },
  ValueTooLong: { status: 400, title: 'A value is longer than allowed' },
  // 401
  Unauthenticated: { status: 401, title: 'Authentication required' },
  // 403
  AccessDenied: { status: 403, title: 'Access right missing' },
  CrossSiteRequest: { status: 403, title: 'Cross-site request refused' },
  // 404
  NotFound: { status: 404, title: 'No such operation' },
  WorkItemNotFound: { status: 404, title: 'Work item not found' },
  ProcedureNotFound: { status: 404, title: 'Automatic work item not found' },
  ProcessInstanceNotFound: { status: 404, title: 'Process instance not found' },
  ActivityInstanceNotFound: { status: 404, title: 'Activity instance not found' },
  ProcessDefinitionNotFound: { status: 404, title: 'Process definition not found' },
  EventNotFound: { status: 404, title: 'Event not found' },
  UserNotFound: { status: 404, title: 'User not found' },
  RoleNotFound: { status: 404, title: 'Role not found' },
  RoleMemberNotFound: { status: 404, title: 'Role member not found' },
  GroupNotFound: { status: 404, title: 'Group not found' },
  GroupMemberNotFound: { status: 404, title: 'Group member not found' },
  AttributeNotFound: { status: 404, title: 'Attribute not found' },
  // 405
  MethodNotAllowed: { status: 405, title: 'Method not allowed' },
  // 409
  WorkItemNotAssigned: { status: 409, title: 'The work item is not assigned' },
  WorkItemNotAvailable: { status: 409, title: 'The work item cannot be taken' },
  WorkItemClosed: { status: 409, title: 'The work item is no longer open' },
  WorkItemBlocked: { status: 409, title: 'A dependent linked work item is still open' },
  ProcedureNotWaiting: { status: 409, title: 'The automatic work item is not waiting' },
  ProcessInstanceNotActive: { status: 409, title: 'The process instance is not active' },
  ProcessInstanceNotSuspended: { status: 409, title: 'The process instance is not suspended' },
  ActivityNotActive: { status: 409, title: 'The activity instance is not active' },
  ActivityNotCancelable: { status: 409, title: 'The activity instance cannot be canceled' },
  RollbackNotPossible: { status: 409, title: 'The process instance cannot be rolled back there' },
  ProcessDefinitionNotReleased: { status: 409, title: 'The process definition is not released' },
  ProcessDefinitionNotCreated: { status: 409, title: 'The process definition cannot be released' },
  DuplicateProcessInstance: { status: 409, title: 'The process instance already exists' },
  DuplicateUser: { status: 409, title: 'The user is already registered' },
  DuplicateRole: { status: 409, title: 'The role already exists' },
  DuplicateRoleMember: { status: 409, title: 'The member already belongs to the role' },
  DuplicateGroup: { status: 409, title: 'The group already exists' },
  DuplicateGroupMember: { status: 409, title: 'The user already belongs to the group' },
  NoPerformer: { status: 409, title: 'The task has nobody to do it' },
  NoMatchingFlow: { status: 409, title: 'No outgoing flow of the gateway can be taken' },
  CalledProcessNotFound: { status: 409, title: 'The called process has no released version' },
  InvalidTimer: { status: 409, title: 'The timer has no usable time' },
  ConcurrentChange: { status: 409, title: 'Another request changed the same thing at the same moment' },
  BuiltInRoleProtected: { status: 409, title: 'The built-in Administrators role is protected' },
  LastAdministrator: { status: 409, title: 'The last administrator cannot be removed' },
  // 413 / 415
  PayloadTooLarge: { status: 413, title: 'The body is too large' },
  UnsupportedMediaType: { status: 415, title: 'The body is not JSON' },
  // 429
  TooManyFailedLogins: { status: 429, title: 'Too many failed logins' },
  // 500 / 503
  InternalError: { status: 500, title: 'Unexpected error' },
  ServiceUnavailable: { status: 503, title: 'The service is unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class WaymarkError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  /** Extra response headers (Retry-After, Allow, WWW-Authenticate). */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, detail: string, headers: Record<string, string> = {}) {
    // No stack: a business error is an answer (its code and detail say where it comes from), never
    // logged with a trace, and capturing one cost 6-7 µs per error in a loop and ~14 µs inside the
    // server, where refusals come by the thousand under overload (`bench writes` at 200
    // connections: 11.5 % of the request thread, docs/performance-log.md, thirty-fifth round).
    // Unexpected errors keep theirs: classify() logs the original error, not this.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(detail);
    Error.stackTraceLimit = limit;
    this.name = 'WaymarkError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.title = ERROR_CODES[code].title;
    this.headers = headers;
  }

  get detail(): string {
    return this.message;
  }
}

export function isWaymarkError(e: unknown): e is WaymarkError {
  return e instanceof WaymarkError;
}
