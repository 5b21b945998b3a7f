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
import * as instances from './commands/instanceCommands.ts';
import * as workItems from './commands/workItemCommands.ts';
import type { EngineDeps } from './context.ts';
import { Dispatcher } from './Dispatcher.ts';
import { EventWaiters } from './EventWaiters.ts';
import { ModelCache } from './ModelCache.ts';
import { toProcessDefinition } from './records.ts';
import * as reads from './queries/workflowQueries.ts';
import { DEFAULT_THROTTLE, type ThrottleOptions } from './LoginThrottle.ts';

export interface EngineOptions {
  store: Store;
  logger: Logger;
  calendar: BusinessCalendar;
  timeZone: string;
  domain: string;
  now?: () => number;
  throttle?: ThrottleOptions;
}

export interface BootstrapResult {
  created: boolean;
  adminName: string;
  /** Where a generated password was written (never the password itself). */
  passwordFile?: string;
}

/** Wrap a state-changing command so that the dispatcher runs as soon as its event is durable. */
type Command<A extends unknown[]> = (caller: Caller, ...args: A) => Promise<EventRow>;

export class Engine {
  readonly deps: EngineDeps;
  readonly auth: Authenticator;
  readonly dispatcher: Dispatcher;
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
    this.dispatcher = new Dispatcher(this.deps, this.waiters);
  }

  /** Start applying events (also those left Sent by a previous run). */
  start(): void {
    this.dispatcher.wake();
  }

  async stop(): Promise<void> {
    await this.dispatcher.stop();
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

  /** Resolve when the event is final, or after `seconds`; returns the event as it is then. */
  async awaitEvent(event: EventRow, seconds: number): Promise<EventRow> {
    if (FINAL_EVENT_STATUSES.has(event.status) || seconds <= 0) return event;
    const waiting = this.waiters.wait(event.event_id, seconds * 1000);
    const now = await findEvent(this.deps.store.db, event.event_id);
    if (now && FINAL_EVENT_STATUSES.has(now.status)) {
      waiting.cancel();
      return now;
    }
    await waiting.done;
    return (await findEvent(this.deps.store.db, event.event_id)) ?? event;
  }

  private command<A extends unknown[]>(fn: (deps: EngineDeps, caller: Caller, ...args: A) => Promise<EventRow>): Command<A> {
    return async (caller, ...args) => {
      const event = await fn(this.deps, caller, ...args);
      this.dispatcher.wake();
      return event;
    };
  }

  // Workflow: state-changing (each answers a Sent WFEvent).
  readonly createLinkedWorkItem = this.command(workItems.createLinkedWorkItem);
  readonly undoAssignWorkItem = this.command(workItems.undoAssignWorkItem);
  readonly assignWorkItem = this.command(workItems.assignWorkItem);
  readonly cancelProcInst = this.command(instances.cancelProcInst);
  readonly createProcInst = this.command(instances.createProcInst);
  readonly completeProcedure = this.command(instances.completeProcedure);
  readonly completeWorkItem = async (caller: Caller, id: unknown, clientData: unknown): Promise<EventRow | null> => {
    const event = await workItems.completeWorkItem(this.deps, caller, id, clientData);
    if (event) this.dispatcher.wake();
    return event;
  };

  // Workflow: definitions.
  readonly createProcDef = async (caller: Caller, xml: unknown) => toProcessDefinition(await definitions.createProcDef(this.deps, caller, xml));
  readonly releaseProcDef = async (caller: Caller, defId: unknown) => toProcessDefinition(await definitions.releaseProcDef(this.deps, caller, defId));

  // Workflow: reads.
  readonly getActivityInstsByPIID = (caller: Caller, id: unknown) => reads.getActivityInstsByPIID(this.deps, caller, id);
  readonly getActivityInst = (caller: Caller, id: unknown) => reads.getActivityInst(this.deps, caller, id);
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

  // Admin: users.
  readonly registerUser = (caller: Caller, input: users.UserProfileInput) => users.registerUser(this.deps, this.auth, caller, input);
  readonly updateRegisterUser = (caller: Caller, input: users.UserProfileInput) => users.updateRegisterUser(this.deps, this.auth, caller, input);
  readonly unregisterUser = (caller: Caller, name: unknown) => users.unregisterUser(this.deps, this.auth, caller, name);
  readonly getRegisterUser = (caller: Caller, name: unknown) => users.getRegisterUser(this.deps, caller, name);
  readonly getRegisterUsers = (caller: Caller) => users.getRegisterUsers(this.deps, caller);
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
}
