/**
 * The `docstack` command line (bin: dist/server/cli/docstack.js; docs/cli.md): start, user,
 * tenant, backup, restore, types. Settings come from the environment and `.env` (ENVFILE), as
 * for `npm start`; options override a few of them.
 */
import { writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { config as loadEnvFile } from 'dotenv';
import { backupStore, readBackup, restoreStore, storeExists } from './backup.js';
import { classesOfNode, classesOfStack } from './class-source.js';
import { cliConfig, closeTarget, describeError, openStore, openTarget, type Out, type Values } from './common.js';
import { TENANT_USAGE, tenantCommand } from './tenants-cli.js';
import { generateTypes } from './types-gen.js';
import { USER_USAGE, userCommand } from './users-cli.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { tenantDataDir, tenantStoreName } from '../tenants/names.js';

export const USAGE = `usage: docstack <command> [options]

  start [--config ./docstack.config.js] [--port 7410]   run the server node (as npm start)
  user add|list|disable|enable|reset-password …          manage users (docstack user --help)
  tenant add|list …                                      manage tenants (docstack tenant --help)
  backup <file> [--tenant t]                             dump a store (the node stopped)
  restore <file> [--tenant t]                            restore a dump into a new store
  types [<store folder>] [--out file.ts]                 TypeScript types of the classes

options: --data-dir <dir> (DATA_DIR), --stack <name> (STACK_NAME), --url <node URL> (DOCSTACK_URL),
         --admin <name> (DOCSTACK_ADMIN; the password in DOCSTACK_ADMIN_PASSWORD)
settings: the environment and .env (ENVFILE), as npm start reads them — docs/cli.md`;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  url: { type: 'string' },
  admin: { type: 'string' },
  'data-dir': { type: 'string' },
  stack: { type: 'string' },
  role: { type: 'string' },
  tenants: { type: 'string' },
  classes: { type: 'string' },
  users: { type: 'string' },
  tenant: { type: 'string' },
  out: { type: 'string' },
  config: { type: 'string' },
  port: { type: 'string' },
} as const;

/** What `start` answers: the node runs on, the caller must not exit. */
export const KEEP_RUNNING = -1;

function usageError(message: string, usage = USAGE): number {
  console.error(`docstack: ${message}\n${usage}`);
  return 2;
}

async function start(values: Values): Promise<number> {
  if (typeof values.config === 'string') process.env.DOCSTACK_CONFIG = values.config;
  if (typeof values.port === 'string') process.env.SERVER_PORT = values.port;
  if (typeof values['data-dir'] === 'string') process.env.DATA_DIR = values['data-dir'];
  if (typeof values.stack === 'string') process.env.STACK_NAME = values.stack;
  await import('../main.js'); // runs until SIGTERM/SIGINT, and exits by itself
  return KEEP_RUNNING;
}

async function backup(file: string, values: Values, out: Out): Promise<number> {
  const config = cliConfig(values);
  const tenant = typeof values.tenant === 'string' ? values.tenant : undefined;
  const stack = await openStore(config, tenant); // a running node holds it: DS_STORAGE_LOCKED
  try {
    const { documents, revisions } = await backupStore(stack, file);
    out(`docstack backup: ${documents} document(s), ${revisions} leaf revision(s) of "${stack.name}" written to ${file}.`);
    return 0;
  } finally {
    await stack.close();
  }
}

async function restore(file: string, values: Values, out: Out): Promise<number> {
  const config = cliConfig(values);
  const tenant = typeof values.tenant === 'string' ? values.tenant : undefined;
  const [dataDir, name] = tenant ? [tenantDataDir(config.dataDir, config.stackName), tenantStoreName(config.stackName, tenant)] : [config.dataDir, config.stackName];
  const { header, docs } = await readBackup(file); // checked whole before anything is created
  if (storeExists(dataDir, name)) throw SERVER_ERRORS.restoreTargetExists(`The store "${name}" exists in ${dataDir}: restore into a new DATA_DIR (--data-dir) or another STACK_NAME (--stack).`, { path: 'DATA_DIR' });
  const stack = await openStore(config, tenant);
  try {
    const { restored, refused } = await restoreStore(stack, docs);
    out(`docstack restore: ${restored} revision(s) of "${header.stack}" (backed up ${header.createdAt}) restored into "${name}" in ${dataDir}.`);
    for (const r of refused) console.error(`docstack restore: ${r.id} refused — ${r.code}: ${r.reason}`);
    return refused.length === 0 ? 0 : 1;
  } finally {
    await stack.close();
  }
}

async function types(store: string | undefined, values: Values, out: Out): Promise<number> {
  // a store's folder (DATA_DIR/STACK_NAME) given as the argument names both
  const config = cliConfig(store ? { ...values, 'data-dir': dirname(resolve(store)), stack: basename(resolve(store)) } : values);
  const target = await openTarget(config, values);
  try {
    const source = target.kind === 'store' ? `the store "${config.stackName}" in ${config.dataDir}` : `the node ${target.node.url}`;
    const classes = target.kind === 'store' ? await classesOfStack(target.stack) : await classesOfNode(target.node.url, target.node.authorization, target.node.stackName);
    const text = generateTypes(classes, { source });
    if (typeof values.out === 'string') {
      await writeFile(values.out, text);
      out(`docstack types: ${classes.length} class(es) from ${source} written to ${values.out}.`);
    } else {
      out(text);
    }
    return 0;
  } finally {
    await closeTarget(target);
  }
}

/** Runs the command line `argv` (without node and the script); answers the exit status (KEEP_RUNNING: the node started). */
export async function runCli(argv: string[], out: Out = (line) => console.log(line)): Promise<number> {
  process.umask(0o077); // files the commands create (stores, backups) are this user's only
  loadEnvFile({ path: process.env.ENVFILE ?? '.env', quiet: true });
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true }) as { values: Values; positionals: string[] };
  } catch (err) {
    return usageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...args] = positionals;
  const label = `docstack${command ? ` ${command}` : ''}`;
  try {
    if (!command) return values.help ? (console.log(USAGE), 0) : usageError('a command is needed.');
    if (values.help) {
      console.log(command === 'user' ? USER_USAGE : command === 'tenant' ? TENANT_USAGE : USAGE);
      return 0;
    }
    switch (command) {
      case 'start':
        return await start(values);
      case 'user':
        return await userCommand(args, values, cliConfig(values), out);
      case 'tenant':
        return await tenantCommand(args, values, cliConfig(values), out);
      case 'backup':
      case 'restore':
        if (args.length !== 1) return usageError(`${command} takes one file.`);
        return command === 'backup' ? await backup(args[0]!, values, out) : await restore(args[0]!, values, out);
      case 'types':
        if (args.length > 1) return usageError('types takes at most one store folder.');
        return await types(args[0], values, out);
      default:
        return usageError(`unknown command ${JSON.stringify(command)}.`);
    }
  } catch (err) {
    console.error(`${label}: ${describeError(err)}`);
    return 1;
  }
}
