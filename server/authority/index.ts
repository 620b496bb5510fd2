import express, { type Request, type Response } from 'express';
import { getApi, KERNEL_ERRORS, type ClientStack } from '../../index.js';
import { isPlainObject } from '../../kit/index.js';
import { authorityPlugin, type AuthorityApi } from '../../plugins.config.js';
import { authorize, callerOf, canRead, classifyWrite } from '../authorization/index.js';
import type { NodeContext } from '../context.js';
import { sendError } from '../errors.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { QUOTA_CLASS, usageKey, type QuotaDoc } from './quota-store.js';
import { Quotas, quotasByStack } from './quotas.js';
import { TENANT_HEADER } from '../tenants/names.js';

/** Numbers one call may reserve: a block is a gap when unused, so a caller cannot burn a sequence at will. */
export const MAX_SEQUENCE_BLOCK = 1000;

/** Stack events of the authority plugin the node emits as its own (docs/server.md#events). */
const FORWARDED = ['sequence:assigned', 'unique:refused'] as const;

/**
 * The node as authority (issue 13): sequence numbers, unique-value claims and quotas. Routes
 * under /api/private (behind the session check); `attach()` once the node's stack is open.
 * The stack is read through `ctx.stack()` here only, so a node serving several stacks switches
 * in one place.
 */
export function createAuthority(ctx: NodeContext) {
  const forwarded = new WeakSet<ClientStack>();
  const stack = () => ctx.stack();
  /** the quotas of the stack served (attached when it opened) */
  const quotasOf = (): Quotas => {
    const found = quotasByStack.get(stack());
    if (!found) throw SERVER_ERRORS.nodeNotReady('The node is starting.');
    return found;
  };
  /** every stack whose quotas are attached: the default one and the tenant stacks open now */
  const attached = new Set<ClientStack>();
  const reloadEverywhere = async () => {
    for (const open of attached) await quotasByStack.get(open)?.reloadLimits();
  };
  const router = express.Router();
  const handle = (fn: (req: Request, res: Response) => Promise<unknown>) => async (req: Request, res: Response) => {
    try {
      res.json(await fn(req, res));
    } catch (err) {
      sendError(res, err, ctx.log);
    }
  };
  /**
   * The stack a user's authority request works on, chosen and authorized like the document API's:
   * the tenant named by X-Docstack-Tenant (members and admins; lent until the answer is sent),
   * else the default database, which a member of tenants does not reach (DS_AUTHZ_TENANT).
   */
  const scoped = async (req: Request, res: Response): Promise<{ stack: ClientStack }> => {
    const tenant = req.get(TENANT_HEADER);
    if (tenant === undefined || !ctx.stackFor) {
      authorize(callerOf(res), { type: 'default-stack' });
      return { stack: stack() };
    }
    const lease = await ctx.stackFor(tenant, callerOf(res));
    res.once('close', () => lease.release());
    return { stack: lease.stack };
  };
  const apiOf = (current: ClientStack): AuthorityApi => {
    const found = getApi(current, authorityPlugin);
    if (!found?.isAuthority) throw KERNEL_ERRORS.pluginMissingRequirement('This node runs without the authority plugin (authority: true).', { details: { requires: 'authority' } });
    return found;
  };

  // any signed-in user: numbers are not secret; count reserves a block (its unused numbers are a gap)
  router.post('/sequences/:name/next', handle(async (req, res) => {
    const count = req.query.count === undefined ? 1 : /^[0-9]{1,6}$/.test(String(req.query.count)) ? Number(req.query.count) : NaN;
    if (count > MAX_SEQUENCE_BLOCK) throw SERVER_ERRORS.requestInvalid(`count is at most ${MAX_SEQUENCE_BLOCK} numbers per call.`, { path: 'count' });
    const { stack: current } = await scoped(req, res);
    const block = await apiOf(current).next(String(req.params.name), count);
    ctx.events.emit('sequence:assigned', { sequence: String(req.params.name), first: block.first, last: block.last, user: callerOf(res).username });
    return block;
  }));

  // claim a unique value for a document about to be written: { value, id } → { claimed, id }
  router.post('/unique/:class/:attribute', handle(async (req, res) => {
    const className = String(req.params.class);
    const body = isPlainObject(req.body) ? req.body : {};
    if (typeof body.id !== 'string' || body.id.length > 200) throw SERVER_ERRORS.requestInvalid('The body must be JSON { "value": …, "id": "<the document id>" }.', { path: 'id' });
    // the value names a `_local` claim document: a bounded one
    if (JSON.stringify(body.value ?? null).length > 1000) throw SERVER_ERRORS.requestInvalid('A claimed value is at most 1,000 characters as JSON.', { path: 'value' });
    const { stack: current } = await scoped(req, res);
    authorize(callerOf(res), { type: 'write', subject: classifyWrite(body.id, { '~class': className }) });
    const answer = await apiOf(current).claim(className, String(req.params.attribute), body.value, body.id);
    if (answer.claimed) return answer;
    ctx.events.emit('unique:refused', { id: body.id, className, attribute: String(req.params.attribute), existingId: answer.id, origin: 'claim' });
    // the holder is named only when it is a stored document the caller may read: a claim
    // made for a document not written yet (or one hidden from the caller) is nobody's business
    const holder = answer.id && canRead(callerOf(res), answer.id) ? await current.getDocument(answer.id) : null;
    return holder ? answer : { claimed: false };
  }));

  const adminOnly = (res: Response, what: string) => authorize(callerOf(res), { type: 'admin', what });
  const withUsage = (q: QuotaDoc) => ({ ...q, usage: quotasOf().usageOf(q.key) });

  router.get('/quotas', handle(async (_req, res) => {
    adminOnly(res, 'read quotas');
    return { quotas: quotasOf().list().map(withUsage) };
  }));

  router.put('/quotas', handle(async (req, res) => {
    adminOnly(res, 'set quotas');
    const quota = quotaOf(req.body, stack().name);
    const current = await stack().getClassSnapshot(QUOTA_CLASS);
    const existing = await current.getByPrimaryKeys({ key: quota.key });
    const { _id: _i, ...fields } = quota;
    const cleared = { maxDocs: null, maxBytes: null, className: null };
    if (existing) await stack().updateDoc(existing._id, { ...cleared, ...fields });
    else await stack().createDoc({ '~class': QUOTA_CLASS, ...fields });
    await reloadEverywhere();
    return withUsage(quotasOf().list().find((q) => q.key === quota.key)!);
  }));

  router.delete('/quotas/:id', handle(async (req, res) => {
    adminOnly(res, 'remove quotas');
    const doc = await stack().getDocument(String(req.params.id));
    if (!doc || doc['~class'] !== QUOTA_CLASS) throw KERNEL_ERRORS.docNotFound('No quota with that id.', { path: 'id' });
    await stack().deleteDocument(doc._id);
    await reloadEverywhere();
    return { ok: true, id: doc._id };
  }));

  // repair: the usage counted again from the stored documents (one pass; run it when the node is quiet)
  router.post('/quotas/recount', handle(async (_req, res) => {
    adminOnly(res, 'recount quota usage');
    await quotasOf().recount(stack());
    return { quotas: quotasOf().list().map(withUsage) };
  }));

  // a user reads their own usage (an admin anyone's: ?user=<id>)
  router.get('/quotas/usage', handle(async (req, res) => {
    const caller = callerOf(res);
    const user = typeof req.query.user === 'string' ? req.query.user : caller.userId;
    if (user !== caller.userId) adminOnly(res, "read another user's usage");
    const className = typeof req.query.class === 'string' ? req.query.class : undefined;
    const { stack: current } = await scoped(req, res);
    const quotas = quotasByStack.get(current);
    if (!quotas) throw SERVER_ERRORS.nodeNotReady('The node is starting.');
    return { user: quotas.usageOf(usageKey('user', user, className)), tenant: quotas.usageOf(usageKey('tenant', quotas.tenant, className)) };
  }));

  return {
    router,
    /** Once the node's stack is open (and again after a reset): quotas attached, authority events forwarded. */
    async attach(): Promise<void> {
      await this.attachStack(stack());
    },
    /** A stack the node serves (the default one, or a tenant's as it opens: its tenant named). */
    async attachStack(current: ClientStack, tenant?: string): Promise<void> {
      await Quotas.attach(ctx, current, tenant);
      attached.add(current);
      current.hooks.onClose.tapPromise('node-authority', async () => {
        attached.delete(current);
      });
      if (forwarded.has(current)) return;
      forwarded.add(current);
      for (const name of FORWARDED) {
        current.on(name, (event: Record<string, unknown>) => ctx.events.emit(name, name === 'sequence:assigned' ? { ...event, first: event.value, last: event.value } : event));
      }
    },
  };
}

/** A quota from the admin route's body, checked: DS_QUOTA_INVALID names the field at fault. */
function quotaOf(body: unknown, tenant: string): QuotaDoc {
  const invalid = (message: string, path: string) => SERVER_ERRORS.quotaInvalid(message, { path });
  if (!isPlainObject(body)) throw invalid('The body must be JSON { scope, subject, className?, maxDocs?, maxBytes? }.', 'scope');
  const { scope, className, maxDocs, maxBytes } = body;
  if (scope !== 'user' && scope !== 'tenant') throw invalid('scope must be "user" or "tenant".', 'scope');
  const subject = scope === 'tenant' && body.subject === undefined ? tenant : body.subject;
  if (typeof subject !== 'string' || subject === '' || subject.length > 200 || subject.includes(':')) throw invalid('subject must be a user id (scope user) or a tenant name, without ":".', 'subject');
  if (className !== undefined && (typeof className !== 'string' || !/^[A-Za-z][A-Za-z0-9_]{0,99}$/.test(className))) throw invalid('className must be the name of an application class.', 'className');
  for (const [name, value] of [['maxDocs', maxDocs], ['maxBytes', maxBytes]] as const) {
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 0)) throw invalid(`${name} must be a whole number ≥ 0.`, name);
  }
  if (maxDocs === undefined && maxBytes === undefined) throw invalid('A quota sets maxDocs, maxBytes or both.', 'maxDocs');
  return {
    _id: '',
    key: usageKey(scope, subject, className as string | undefined),
    scope,
    subject,
    ...(className !== undefined ? { className: className as string } : {}),
    ...(maxDocs !== undefined ? { maxDocs: maxDocs as number } : {}),
    ...(maxBytes !== undefined ? { maxBytes: maxBytes as number } : {}),
  };
}
