/**
 * The engine's public face: every operation the API (or the CLI) can call, with rights checked
 * here, not in routes. Owns the dispatcher and the authentication caches.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { BusinessCalendar } from '../domain/calendar.ts';
import { FINAL_EVENT_STATUSES } from '../domain/statuses.ts';
import { hashPassword } from '../domain/passwords.ts';
import { userKey } from '../domain/userNames.ts';
import { findEvent, type EventRow } from '../store/queries/events.ts';
import { countUsers, insertUser, setPasswordHash } from '../store/queries/users.ts';
import { insertRoleMember } from '../store/queries/roles.ts';
import type { Store } from '../store/Store.ts';
import { ZERO_ID } from '../domain/ids.ts';
import type { Caller } from './accessPolicy.ts';
import * as roles from './admin/roleAdmin.ts';
import * as users from './admin/userAdmin.ts';
import { Authenticator } from './Authenticator.ts';
import * as definitions from './commands/definitionCommands.ts';
import * as attributes from './commands/attributeCommands.ts';
import { runCommand, type CommandArgs, type CommandName } from './commandRegistry.ts';
import * as groups from './admin/groupAdmin.ts';
import { Timers } from './Timers.ts';
import { WaymarkError, ERROR_CODES, type ErrorCode } from '../domain/errors.ts';
import type { EngineDeps } from './context.ts';
import { Dispatcher, SENT_CHANNEL } from './Dispatcher.ts';
import { WriterThread, type DispatcherControl, type WriterThreadOptions } from './writerThread.ts';
import { EventWaiters } from './EventWaiters.ts';
import { ModelCache } from './ModelCache.ts';
import { toProcessDefinition } from './records.ts';
import * as reads from './queries/workflowQueries.ts';
import * as queries from './queries/queryOperations.ts';
import { outsideRequest, requestWaitsForEvent } from './requestContext.ts';
import { DEFAULT_THROTTLE, type ThrottleOptions } from './LoginThrottle.ts';

export interface EngineOptions {
  store: Store;
  logger: Logger;
  calendar: BusinessCalendar;
  timeZone: string;
  domain: string;
  now?: () => number;
  throttle?: ThrottleOptions;
  /** How long a node's claim on an event lasts before another node may take it over. */
  claimLeaseMs?: number;
  /**
   * Run the commands that admit events, and the dispatcher, on a thread of their own (an SQLite
   * file whose store holds side 1 of the lock; see writerThread.ts); otherwise on this thread.
   */
  writerThread?: WriterThreadOptions;
  /**
   * Where nodes share the database (PostgreSQL): apply the events a group commit admits in its own
   * transaction (Dispatcher.inlineTail; WAYMARK_APPLY_IN_GROUP_COMMIT). The writer thread has its
   * own switch (WriterThreadOptions).
   */
  applyInGroupCommit?: boolean;
}

export interface BootstrapResult {
  created: boolean;
  adminName: string;
  /** Where a generated password was written (never the password itself). */
  passwordFile?: string;
}

/** How long UpdateWorkItem waits for its event before answering (it is applied later if it takes longer). */
const UPDATE_WAIT_SECONDS = 10;

/** How often a `Prefer: wait` re-reads its event when no wake-up came. */
const AWAIT_POLL_MS = 250;

export class Engine {
  readonly deps: EngineDeps;
  readonly auth: Authenticator;
  readonly dispatcher: DispatcherControl;
  /** The writer thread, where commands and the dispatcher run (null: both run on this thread). */
  private readonly writer: WriterThread | null;
  /** The timer loop: fires due timers (timer events, overdue tasks). */
  readonly timers: Timers;
  private readonly waiters = new EventWaiters();

  constructor(opts: EngineOptions) {
    this.deps = {
      store: opts.store,
      now: opts.now ?? Date.now,
      calendar: opts.calendar,
      timeZone: opts.timeZone,
      domain: opts.domain,
      logger: opts.logger,
      models: new ModelCache(),
    };
    this.auth = new Authenticator(this.deps, opts.throttle ?? DEFAULT_THROTTLE);
    const lock = opts.store.threadLock;
    this.writer = opts.writerThread && lock ? new WriterThread(opts.writerThread, this.waiters, opts.logger, lock, () => opts.store.refreshReads()) : null;
    if (this.writer) {
      this.dispatcher = this.writer.dispatcher;
    } else {
      const dispatcher = new Dispatcher(this.deps, this.waiters, opts.claimLeaseMs);
      if (opts.applyInGroupCommit && opts.store.caps.sharedByNodes) opts.store.setGroupCommitTail(dispatcher.inlineTail());
      this.dispatcher = dispatcher;
    }
    this.timers = new Timers(this.deps, () => this.eventAdmitted());
  }

  /** Start applying events (also those left Sent by a previous run). */
  async start(): Promise<void> {
    if (this.writer) await this.writer.start();
    else await this.dispatcher.start();
    this.timers.start();
  }

  async stop(): Promise<void> {
    await this.timers.stop();
    if (this.writer) await this.writer.stop();
    else await this.dispatcher.stop();
  }

  /** First start on an empty database: the admin account in Administrators. */
  async bootstrap(dataDir: string, adminPassword: string | undefined): Promise<BootstrapResult> {
    const adminName = `${this.deps.domain}\\admin`;
    const db = this.deps.store.db;
    if ((await countUsers(db)) > 0) return { created: false, adminName };
    const password = adminPassword ?? crypto.randomBytes(18).toString('base64url');
    const hash = await hashPassword(password);
    const now = this.deps.now();
    await this.deps.store.transaction(async (trx) => {
      const key = userKey(adminName);
      await roles.ensureAdministratorsRole(trx, now, adminName);
      await insertUser(trx, { user_key: key, user_name: adminName, full_name: 'Administrator', registered_date: now, ual_never_expires: 1, disabled: 0 });
      await setPasswordHash(trx, key, hash, now);
      await insertRoleMember(trx, {
        role_key: roles.ADMINISTRATORS_KEY, assignee: adminName, assignee_key: key, assignee_type: 'User',
        object_id: ZERO_ID, object_type: 'All', client_data: null, created_by: adminName, created_date: now,
      });
      await this.auth.securityChanged(trx);
    });
    if (adminPassword !== undefined) return { created: true, adminName };
    const passwordFile = path.join(dataDir, 'initial-admin-password');
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    fs.chmodSync(passwordFile, 0o600);
    return { created: true, adminName, passwordFile };
  }

  /**
   * Resolve when the event is final, or after `seconds`; returns the event as it is then. Woken by
   * this node's dispatcher (with the final row) or another node's notification (then the row is
   * read); re-reads at least every POLL_MS in case a notification was lost.
   */
  async awaitEvent(event: EventRow, seconds: number): Promise<EventRow> {
    const deadline = Date.now() + seconds * 1000;
    let current = event;
    while (!FINAL_EVENT_STATUSES.has(current.status) && Date.now() < deadline) {
      const woken = await this.waiters.wait(event.event_id, Math.min(AWAIT_POLL_MS, deadline - Date.now())).done;
      if (woken.row) return woken.row;
      current = (await findEvent(this.deps.store.db, event.event_id)) ?? current;
    }
    return current;
  }

  /** Changes waiting for the next group commit: the store's backlog, an overload signal. */
  pendingWrites(): number {
    return this.deps.store.pendingWrites + (this.writer?.pending ?? 0);
  }

  /** Wake this node's dispatcher, and the other nodes' when they share the database. */
  private eventAdmitted(): void {
    // The dispatcher's work is not part of this request: its log lines must not carry its id.
    outsideRequest(() => this.dispatcher.wake());
    const store = this.deps.store;
    if (store.caps.sharedByNodes) store.notify(store.db, SENT_CHANNEL, '').catch(() => {});
  }

  /**
   * A state-changing command: run here, or on the writer thread where there is one; either way the
   * dispatcher runs as soon as its event is durable.
   */
  private run<N extends CommandName>(name: N, caller: Caller, args: CommandArgs<N>, wait = requestWaitsForEvent()): Promise<EventRow | null> {
    if (this.writer) return this.writer.run(name, caller, args, wait);
    return runCommand(name, this.deps, caller, args).then((event) => {
      // An event its group commit applied already (Dispatcher.inlineTail) leaves nothing to wake.
      if (event && !this.waiters.finalizedLately(event.event_id)) this.eventAdmitted();
      return event;
    });
  }

  private command<N extends Exclude<CommandName, 'completeWorkItem'>>(name: N): (caller: Caller, ...args: CommandArgs<N>) => Promise<EventRow> {
    return (caller, ...args) => this.run(name, caller, args) as Promise<EventRow>;
  }

  // Workflow: state-changing (each answers a Sent WFEvent).
  readonly createLinkedWorkItem = this.command('createLinkedWorkItem');
  readonly undoAssignWorkItem = this.command('undoAssignWorkItem');
  readonly assignWorkItem = this.command('assignWorkItem');
  readonly cancelProcInst = this.command('cancelProcInst');
  readonly createProcInst = this.command('createProcInst');
  readonly completeProcedure = this.command('completeProcedure');
  /** Null when the item was completed already (nothing admitted). */
  readonly completeWorkItem = (caller: Caller, id: unknown, clientData: unknown): Promise<EventRow | null> => this.run('completeWorkItem', caller, [id, clientData]);

  // Workflow: instance control, task lifecycle (each answers a WFEvent).
  readonly suspendProcInst = this.command('suspendProcInst');
  readonly resumeProcInst = this.command('resumeProcInst');
  readonly cancelActivityInst = this.command('cancelActivityInst');
  readonly rollbackProcInst = this.command('rollbackProcInst');
  readonly reassignWorkItem = this.command('reassignWorkItem');
  readonly cancelWorkItem = this.command('cancelWorkItem');
  readonly createWorkItem = this.command('createWorkItem');
  readonly activateWorkItem = this.command('activateWorkItem');
  /** Answers once the change is applied (the interface answers UpdateWorkItem with an empty body). */
  readonly updateWorkItem = async (caller: Caller, id: unknown, attrs: unknown): Promise<void> => {
    const event = (await this.run('updateWorkItem', caller, [id, attrs], true)) as EventRow;
    // A suspended instance applies it when resumed: nothing to wait for now.
    if (event.status === 'Deferred') return;
    const done = await this.awaitEvent(event, UPDATE_WAIT_SECONDS);
    if (done.status === 'Failed') {
      const code = (done.error_code && done.error_code in ERROR_CODES ? done.error_code : 'InternalError') as ErrorCode;
      throw new WaymarkError(code, done.error_message ?? 'The update could not be applied.');
    }
  };

  // Workflow: process attributes and custom attributes (written at once, no event).
  readonly getProcInstAttrs = (caller: Caller, id: unknown) => attributes.getProcInstAttrs(this.deps, caller, id);
  readonly getProcInstAttr = (caller: Caller, id: unknown, name: unknown) => attributes.getProcInstAttr(this.deps, caller, id, name);
  readonly updateProcInst = (caller: Caller, id: unknown, attrs: unknown) => attributes.updateProcInst(this.deps, caller, id, attrs);
  readonly setCustomAttrs = (caller: Caller, customId: unknown, attrs: unknown) => attributes.setCustomAttrs(this.deps, caller, customId, attrs);
  readonly getCustomAttrsByID = (caller: Caller, customId: unknown) => attributes.getCustomAttrsByID(this.deps, caller, customId);
  readonly removeCustomAttrs = (caller: Caller, customId: unknown, names: unknown) => attributes.removeCustomAttrs(this.deps, caller, customId, names);

  // Workflow: definitions.
  readonly createProcDef = async (caller: Caller, xml: unknown) => toProcessDefinition(await definitions.createProcDef(this.deps, caller, xml));
  readonly releaseProcDef = async (caller: Caller, defId: unknown) => toProcessDefinition(await definitions.releaseProcDef(this.deps, caller, defId));

  // Workflow: reads.
  readonly getActivityInstsByPIID = (caller: Caller, id: unknown) => reads.getActivityInstsByPIID(this.deps, caller, id);
  readonly getActivityInst = (caller: Caller, id: unknown) => reads.getActivityInst(this.deps, caller, id);
  /** The three single-record reads at once, or undefined: await the read of the same name (workflowQueries.ts). */
  readonly getActivityInstsByPIIDNow = (caller: Caller, id: unknown) => reads.getActivityInstsByPIIDNow(this.deps, caller, id);
  readonly getActivityInstNow = (caller: Caller, id: unknown) => reads.getActivityInstNow(this.deps, caller, id);
  readonly getWorkItemNow = (caller: Caller, id: unknown) => reads.getWorkItemNow(this.deps, caller, id);
  readonly getWorkListByUserIDNow = (caller: Caller, input: { UserName?: unknown; Status?: unknown }) => reads.getWorkListByUserIDNow(this.deps, caller, input);
  readonly getProcInst = (caller: Caller, id: unknown) => reads.getProcInst(this.deps, caller, id);
  readonly getWorkItem = (caller: Caller, id: unknown) => reads.getWorkItem(this.deps, caller, id);
  readonly getWorkListByUserID = (caller: Caller, input: { UserName?: unknown; Status?: unknown }) => reads.getWorkListByUserID(this.deps, caller, input);
  readonly getEvent = (caller: Caller, id: unknown) => reads.getEvent(this.deps, caller, id);
  readonly getEventsByProcInstID = (caller: Caller, id: unknown) => reads.getEventsByProcInstID(this.deps, caller, id);
  readonly getProcedure = (caller: Caller, id: unknown) => reads.getProcedure(this.deps, caller, id);
  readonly queryProcedureList = (caller: Caller, input: Record<string, unknown>) => reads.queryProcedureList(this.deps, caller, input);
  readonly getProcDefs = (caller: Caller) => reads.getProcDefs(this.deps, caller);
  readonly getReleasedProcDefs = (caller: Caller) => reads.getReleasedProcDefs(this.deps, caller);
  readonly getReleasedPID = (caller: Caller, name: unknown) => reads.getReleasedPID(this.deps, caller, name);
  readonly getUUID = (caller: Caller) => reads.getUUID(this.deps, caller);

  // Workflow and Admin: the Query... operations (docs/queries.md).
  readonly queryWorkList = (caller: Caller, input: Record<string, unknown>) => queries.queryWorkList(this.deps, caller, input);
  readonly queryWorkListUsingSQL = (caller: Caller, input: queries.SqlWhereInput) => queries.queryWorkListUsingSQL(this.deps, caller, input);
  readonly queryProcInsts = (caller: Caller, input: Record<string, unknown>) => queries.queryProcInsts(this.deps, caller, input);
  readonly queryProcInstsUsingSQL = (caller: Caller, input: queries.SqlWhereInput) => queries.queryProcInstsUsingSQL(this.deps, caller, input);
  readonly queryActivityInsts = (caller: Caller, input: Record<string, unknown>) => queries.queryActivityInsts(this.deps, caller, input);
  readonly queryRegisterUsersUsingSQL = (caller: Caller, input: queries.SqlWhereInput) => queries.queryRegisterUsersUsingSQL(this.deps, caller, input);
  readonly queryAuditTrail = (caller: Caller, input: queries.AuditWhereInput) => queries.queryAuditTrail(this.deps, caller, input);

  // Admin: users.
  readonly registerUser = (caller: Caller, input: users.UserProfileInput) => users.registerUser(this.deps, this.auth, caller, input);
  readonly updateRegisterUser = (caller: Caller, input: users.UserProfileInput) => users.updateRegisterUser(this.deps, this.auth, caller, input);
  readonly unregisterUser = (caller: Caller, name: unknown) => users.unregisterUser(this.deps, this.auth, caller, name);
  readonly getRegisterUser = (caller: Caller, name: unknown) => users.getRegisterUser(this.deps, caller, name);
  readonly getRegisterUsers = (caller: Caller) => users.getRegisterUsers(this.deps, caller);
  readonly registeredUsersVersion = (caller: Caller) => users.registeredUsersVersion(this.deps, caller);
  readonly getAccessRights = (caller: Caller, name: unknown) => users.getAccessRights(this.deps, this.auth, caller, name);

  // Admin: roles.
  readonly addRole = (caller: Caller, input: roles.RoleInput) => roles.addRole(this.deps, this.auth, caller, input);
  readonly updateRole = (caller: Caller, input: roles.RoleInput) => roles.updateRole(this.deps, this.auth, caller, input);
  readonly getRole = (caller: Caller, name: unknown) => roles.getRole(this.deps, caller, name);
  readonly getRoles = (caller: Caller) => roles.getRoles(this.deps, caller);
  readonly removeRole = (caller: Caller, name: unknown) => roles.removeRole(this.deps, this.auth, caller, name);
  readonly addRoleMember = (caller: Caller, input: roles.RoleMemberInput) => roles.addRoleMember(this.deps, this.auth, caller, input);
  readonly removeRoleMember = (caller: Caller, input: roles.RoleMemberInput) => roles.removeRoleMember(this.deps, this.auth, caller, input);
  readonly getAccessRightNames = (caller: Caller) => roles.getAccessRightNames(caller);

  // Admin: groups.
  readonly addGroup = (caller: Caller, input: groups.GroupInput) => groups.addGroup(this.deps, this.auth, caller, input);
  readonly updateGroup = (caller: Caller, input: groups.GroupInput) => groups.updateGroup(this.deps, this.auth, caller, input);
  readonly getGroup = (caller: Caller, name: unknown) => groups.getGroup(this.deps, caller, name);
  readonly getGroups = (caller: Caller) => groups.getGroups(this.deps, caller);
  readonly removeGroup = (caller: Caller, name: unknown) => groups.removeGroup(this.deps, this.auth, caller, name);
  readonly addGroupMember = (caller: Caller, input: groups.GroupMemberInput) => groups.addGroupMember(this.deps, this.auth, caller, input);
  readonly getGroupMembers = (caller: Caller, name: unknown) => groups.getGroupMembers(this.deps, caller, name);
  readonly removeGroupMember = (caller: Caller, input: groups.GroupMemberInput) => groups.removeGroupMember(this.deps, this.auth, caller, input);
}
