/**
 * `docstack user add|list|disable|enable|reset-password`: on the node's store when no node runs
 * on it, else through the running node's `/api/private/users` routes with an admin login
 * (common.ts, openTarget). New passwords come from standard input (first line) or are generated
 * and printed once.
 */
import { randomBytes } from 'node:crypto';
import { SESSION_CLASS } from '../auth/users.js';
import { UserAdmin } from '../auth/user-admin.js';
import type { PublicUser } from '../auth/users.js';
import type { ServerConfig } from '../context.js';
import { closeTarget, openTarget, readStdinLine, type Out, type Target, type Values } from './common.js';

export const USER_USAGE = `usage: docstack user add <name> [--role admin|user] [--tenants a,b]   (the password on stdin, or one is generated)
       docstack user list
       docstack user disable <name> | enable <name>
       docstack user reset-password <name>                              (the password on stdin, or one is generated)
  on a running node: DOCSTACK_ADMIN_PASSWORD=… [--admin <name>] [--url http://127.0.0.1:7410]`;

/** The users' operations, on a store or through a node. */
interface Users {
  list(): Promise<PublicUser[]>;
  add(body: { username: string; password: string; role?: string; tenants?: string[] }): Promise<PublicUser>;
  setDisabled(name: string, disabled: boolean): Promise<PublicUser>;
  /** answers how many sessions ended, when known */
  resetPassword(name: string, password: string): Promise<number | null>;
}

function usersOf(target: Target): Users {
  if (target.kind === 'node') {
    const { node } = target;
    const path = (name: string) => `/api/private/users/${encodeURIComponent(name)}`;
    return {
      list: async () => (await node.call<{ users: PublicUser[] }>('GET', '/api/private/users')).users,
      add: (body) => node.call<PublicUser>('POST', '/api/private/users', body),
      setDisabled: (name, disabled) => node.call<PublicUser>('POST', `${path(name)}/${disabled ? 'disable' : 'enable'}`),
      // the node ends every session of the user itself (bound to the old hash, and revoked)
      resetPassword: async (name, password) => (await node.call('PUT', `${path(name)}/password`, { password }), null),
    };
  }
  const { stack } = target;
  const admin = new UserAdmin({ stack: () => stack, log: () => undefined });
  return {
    list: () => admin.list(),
    add: (body) => admin.create(body),
    setDisabled: async (name, disabled) => {
      const user = await admin.setDisabled(name, disabled);
      if (disabled) await endSessions(target, user.id);
      return user;
    },
    resetPassword: async (name, password) => {
      const user = await admin.setPassword(name, { password });
      // bound to the old hash, so refused by the node anyway; ended here too
      return endSessions(target, user._id);
    },
  };
}

async function endSessions(target: Target & { kind: 'store' }, userId: string): Promise<number> {
  const sessions = await target.stack.findDocuments(SESSION_CLASS, { userId });
  for (const session of sessions) await target.stack.deleteDocument(session._id, { origin: 'system' });
  return sessions.length;
}

const describeUser = (u: PublicUser): string =>
  `${u.username}\t${u.role}${u.disabled ? '\tdisabled' : ''}${u.tenants.length > 0 ? `\ttenants: ${u.tenants.join(',')}` : ''}`;

/** Runs one user command; answers the exit status (2: a usage error). */
export async function userCommand(args: string[], values: Values, config: ServerConfig, out: Out): Promise<number> {
  const [command, name] = args;
  const named = ['add', 'disable', 'enable', 'reset-password'];
  if (!command || (named.includes(command) ? !name : command !== 'list')) {
    console.error(USER_USAGE);
    return 2;
  }
  // read stdin before anything opens: the password is never an argument (shell history, ps)
  const piped = command === 'add' || command === 'reset-password' ? await readStdinLine() : null;
  const password = piped ?? randomBytes(18).toString('base64url');
  const target = await openTarget(config, values);
  try {
    const users = usersOf(target);
    const via = target.kind === 'node' ? ` (through the node at ${target.node.url})` : '';
    if (command === 'list') {
      for (const user of await users.list()) out(describeUser(user));
    } else if (command === 'add') {
      const tenants = typeof values.tenants === 'string' ? values.tenants.split(',').map((t) => t.trim()).filter(Boolean) : undefined;
      const role = typeof values.role === 'string' ? values.role : undefined;
      const user = await users.add({ username: name!, password, ...(role ? { role } : {}), ...(tenants ? { tenants } : {}) });
      out(`docstack user: ${JSON.stringify(user.username)} created (role ${user.role})${via}.`);
    } else if (command === 'disable' || command === 'enable') {
      await users.setDisabled(name!, command === 'disable');
      out(`docstack user: ${JSON.stringify(name)} ${command}d${command === 'disable' ? '; every session of the user ended' : ''}${via}.`);
    } else {
      const ended = await users.resetPassword(name!, password);
      out(`docstack user: the password of ${JSON.stringify(name)} was reset; ${ended === null ? 'every' : ended} session(s) ended${via}.`);
    }
    if (!piped && (command === 'add' || command === 'reset-password')) out(`docstack user: new password (shown once): ${password}`);
    return 0;
  } finally {
    await closeTarget(target);
  }
}
