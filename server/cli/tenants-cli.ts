/**
 * `docstack tenant add|list`. A tenant exists while a class names it in its `tenants`
 * (docs/server.md#tenants): `add` puts the tenant into the classes given (and, with --users,
 * into those users' lists); `list` shows each tenant with its classes and members. On the store,
 * or through the running node (the class documents over its replication endpoint, as an admin).
 */
import type { ClientStack } from '../../index.js';
import { UserAdmin } from '../auth/user-admin.js';
import type { PublicUser } from '../auth/users.js';
import type { ServerConfig } from '../context.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { requireTenantName } from '../tenants/names.js';
import { classesOfNode, classesOfStack } from './class-source.js';
import { closeTarget, openTarget, type NodeClient, type Out, type Target, type Values } from './common.js';

export const TENANT_USAGE = `usage: docstack tenant add <name> --classes A,B [--users alice,bob]
       docstack tenant list`;

const list = (value: unknown): string[] => (typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : []);

async function classTenants(target: Target): Promise<Map<string, string[]>> {
  const classes = target.kind === 'store' ? await classesOfStack(target.stack) : await classesOfNode(target.node.url, target.node.authorization, target.node.stackName);
  return new Map(classes.map((c) => [c.name, ((c as unknown as { tenants?: string[] }).tenants ?? []).slice()]));
}

async function usersOf(target: Target): Promise<PublicUser[]> {
  if (target.kind === 'node') return (await target.node.call<{ users: PublicUser[] }>('GET', '/api/private/users')).users;
  return new UserAdmin({ stack: () => target.stack, log: () => undefined }).list();
}

async function addToClassOnStore(stack: ClientStack, className: string, tenant: string): Promise<void> {
  const cls = await stack.getClassSnapshot(className); // DS_CLASS_NOT_FOUND for a name that is no class
  await cls.saveModel((model) => ({ ...model, tenants: [...new Set([...(model.tenants ?? []), tenant])] }));
}

/** The class document rewritten with one more tenant, as an admin's replication write (a new revision). */
async function addToClassOnNode(node: NodeClient, className: string, tenant: string): Promise<void> {
  const path = `/db/${encodeURIComponent(node.stackName)}/${encodeURIComponent(className)}`;
  const doc = await node.call<Record<string, unknown>>('GET', path);
  const tenants = Array.isArray(doc.tenants) ? (doc.tenants as string[]) : [];
  if (tenants.includes(tenant)) return;
  await node.call('PUT', path, { ...doc, tenants: [...tenants, tenant] });
}

async function addToUser(target: Target, username: string, tenant: string): Promise<void> {
  if (target.kind === 'node') {
    const path = `/api/private/users/${encodeURIComponent(username)}/tenants`;
    const { tenants } = await target.node.call<{ tenants: string[] }>('GET', path);
    await target.node.call('PUT', path, { tenants: [...new Set([...tenants, tenant])] });
    return;
  }
  const admin = new UserAdmin({ stack: () => target.stack, log: () => undefined });
  const { tenants } = await admin.publicOf(username);
  await admin.setTenants(username, { tenants: [...new Set([...tenants, tenant])] });
}

export async function tenantCommand(args: string[], values: Values, config: ServerConfig, out: Out): Promise<number> {
  const [command, name] = args;
  if (command !== 'list' && !(command === 'add' && name)) {
    console.error(TENANT_USAGE);
    return 2;
  }
  const tenant = command === 'add' ? requireTenantName(name) : '';
  const classes = list(values.classes);
  if (command === 'add' && classes.length === 0) {
    throw SERVER_ERRORS.tenantNotFound(`A tenant exists while a class names it: give its classes with --classes A,B (docs/server.md#tenants).`, { path: 'classes' });
  }
  const target = await openTarget(config, values);
  try {
    if (command === 'add') {
      for (const className of classes) {
        if (target.kind === 'store') await addToClassOnStore(target.stack, className, tenant);
        else await addToClassOnNode(target.node, className, tenant);
      }
      for (const username of list(values.users)) await addToUser(target, username, tenant);
      out(`docstack tenant: ${JSON.stringify(tenant)} added to ${classes.join(', ')}${values.users ? `; members: ${list(values.users).join(', ')}` : ''}.`);
      return 0;
    }
    const byClass = await classTenants(target);
    const users = await usersOf(target);
    const tenants = [...new Set([...byClass.values()].flat())].sort();
    for (const t of tenants) {
      const classNames = [...byClass].filter(([, ts]) => ts.includes(t)).map(([c]) => c).sort();
      const members = users.filter((u) => u.tenants.includes(t)).map((u) => u.username);
      out(`${t}\tclasses: ${classNames.join(',')}\tusers: ${members.join(',') || '-'}`);
    }
    if (tenants.length === 0) out('docstack tenant: no class names a tenant.');
    return 0;
  } finally {
    await closeTarget(target);
  }
}
