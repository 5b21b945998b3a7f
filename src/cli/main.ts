/**
 * The `waymark` command: serve, migrate, deploy, user, role. Commands other than `serve` work on
 * the database directly (also while a server runs: SQLite allows it) as the built-in system user.
 */
import fs from 'node:fs';
import { ConfigError, describeDatabase, loadConfig, type Config } from '../config.ts';
import { isWaymarkError } from '../domain/errors.ts';
import { RIGHT_COUNT } from '../domain/rights.ts';
import type { Caller } from '../engine/accessPolicy.ts';
import { createLogger, createWaymark, type Waymark } from '../server.ts';
import { SchemaTooNewError } from '../store/Store.ts';
import { readPassword } from './readPassword.ts';
import { BackupError, backupCommand, restoreCommand } from './backup.ts';

const USAGE = `Usage: waymark <command>

  serve                                start the server (WAYMARK_* variables configure it)
  migrate                              create or upgrade the database schema, then exit
  deploy FILE.bpmn [--release]         deploy a BPMN process definition (and release it)
  user add DOMAIN\\user [--full-name N] [--email E] [--password-stdin]
                                       register a user (password from stdin or a prompt)
  user passwd DOMAIN\\user [--password-stdin]
                                       set a user's password
  role add NAME [RIGHT ...]            create a role with rights (indexes or names)
  role grant NAME RIGHT [RIGHT ...]    add rights to a role
  role add-member NAME DOMAIN\\user     make a user a member of a role
  backup FILE [--force]                copy the database to FILE (online: the server may run)
  restore FILE                         replace the database with a backup (stop the server first)
  help                                 this text`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    const config = loadConfig();
    switch (command) {
      case 'serve':
        return await serve(config);
      case 'migrate':
        return await withWaymark(config, async (w) => say(`Database ready at ${describeDatabase(w.config)}.`));
      case 'deploy':
        return await withWaymark(config, (w) => deploy(w, rest));
      case 'user':
        return await withWaymark(config, (w) => user(w, rest));
      case 'role':
        return await withWaymark(config, (w) => role(w, rest));
      case 'backup':
        await backupCommand(config, rest, say);
        return 0;
      case 'restore':
        await restoreCommand(config, rest, say);
        return 0;
      case undefined:
      case 'help':
      case '--help':
        say(USAGE);
        return 0;
      default:
        return fail(`unknown command "${command}".\n${USAGE}`);
    }
  } catch (e) {
    if (e instanceof ConfigError || e instanceof SchemaTooNewError || e instanceof UsageError || e instanceof BackupError) return fail(e.message);
    if (isWaymarkError(e)) return fail(`${e.code}: ${e.message}`);
    throw e;
  }
}

class UsageError extends Error {}

async function serve(config: Config): Promise<number> {
  const w = await createWaymark(config);
  const url = await w.listen();
  w.logger.info({ url, roots: ['EngineServer', 'EngineService', ...config.rootAliases], database: describeDatabase(config) }, `Waymark listening on ${url}`);
  if (w.bootstrap.created) {
    const where = w.bootstrap.passwordFile ? `its password is in ${w.bootstrap.passwordFile}` : 'its password is WAYMARK_ADMIN_PASSWORD';
    w.logger.info(`Created the administrator ${w.bootstrap.adminName}; ${where}.`);
  }
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      w.logger.info({ signal }, 'shutting down');
      resolve();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  await w.close();
  return 0;
}

async function withWaymark(config: Config, fn: (w: Waymark) => Promise<unknown>): Promise<number> {
  const w = await createWaymark(config, { logger: createLogger(process.env.WAYMARK_LOG_LEVEL || 'warn'), dispatch: false });
  try {
    await fn(w);
    return 0;
  } finally {
    await w.close();
  }
}

function systemCaller(w: Waymark): Caller {
  const name = `${w.config.domain}\\system`;
  return { userName: name, userKey: name.toLowerCase(), rights: new Set(Array.from({ length: RIGHT_COUNT }, (_, i) => i)) };
}

async function deploy(w: Waymark, args: string[]): Promise<void> {
  const file = args.find((a) => !a.startsWith('--'));
  if (!file) throw new UsageError('deploy needs a BPMN file: waymark deploy FILE.bpmn [--release]');
  const xml = fs.readFileSync(file, 'utf8');
  const def = await w.engine.createProcDef(systemCaller(w), xml);
  say(`Deployed ${def.DefName} version ${def.Version} as ${def.DefID} (Created).`);
  if (args.includes('--release')) {
    await w.engine.releaseProcDef(systemCaller(w), def.DefID);
    say(`Released ${def.DefName} version ${def.Version}.`);
  }
}

async function user(w: Waymark, args: string[]): Promise<void> {
  const [sub, name] = args;
  if (!name || (sub !== 'add' && sub !== 'passwd')) throw new UsageError('user needs: add|passwd DOMAIN\\user');
  const password = await readPassword(args.includes('--password-stdin'));
  const caller = systemCaller(w);
  if (sub === 'add') {
    await w.engine.registerUser(caller, { UserName: name, FullName: option(args, '--full-name'), EmailAddress: option(args, '--email'), Password: password });
    say(`Registered ${name}.`);
  } else {
    await w.engine.updateRegisterUser(caller, { UserName: name, Password: password });
    say(`Password of ${name} changed.`);
  }
}

async function role(w: Waymark, args: string[]): Promise<void> {
  const [sub, name, ...more] = args;
  const caller = systemCaller(w);
  if (sub === 'add' && name) {
    await w.engine.addRole(caller, { RoleName: name, Rights: more, Enabled: true });
    say(`Role ${name} created.`);
  } else if (sub === 'grant' && name && more.length > 0) {
    const current = await w.engine.getRole(caller, name);
    const held = [...String(current.RightFlags)].flatMap((f, i) => (f === 'Y' ? [i] : []));
    const updated = await w.engine.updateRole(caller, { RoleName: name, Rights: [...held, ...more] });
    say(`Role ${name} rights: ${updated.RightFlags}`);
  } else if (sub === 'add-member' && name && more[0]) {
    await w.engine.addRoleMember(caller, { RoleName: name, Assignee: more[0], AssigneeType: 'User' });
    say(`${more[0]} is now a member of ${name}.`);
  } else {
    throw new UsageError('role needs: add NAME [RIGHT ...] | grant NAME RIGHT ... | add-member NAME DOMAIN\\user');
  }
}

function option(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

function say(text: string): void {
  process.stdout.write(`${text}\n`);
}

function fail(text: string): number {
  process.stderr.write(`waymark: ${text}\n`);
  return 2;
}
