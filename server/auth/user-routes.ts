import express, { type Request, type Response } from 'express';
import type { Doc } from '../../index.js';
import { authorize, callerOf, type Caller } from '../authorization/index.js';
import type { NodeContext } from '../context.js';
import { sendError } from '../errors.js';
import { setTokenCookie } from './cookies.js';
import { attemptRefusal } from './refusals.js';
import type { AuthService } from './service.js';
import type { UserAdmin } from './user-admin.js';
import { publicUser } from './users.js';

type Route = (req: Request, res: Response) => Promise<unknown>;

/**
 * A non-admin reaches only their own name, refused before the name is looked up: the answer is
 * the same 403 for another user and for a name nobody has (no oracle of which usernames exist).
 */
function requireOwnName(caller: Caller, name: string, what: string): void {
  if (!caller.admin && caller.username !== name) authorize(caller, { type: 'own', ownerId: '', what });
}

/**
 * `/api/private/users…` (behind the session check): admins manage users; a user changes only
 * their own password, with the current one. Nobody changes their own role unless an admin.
 */
export function createUserRouter(ctx: NodeContext, users: UserAdmin, service: AuthService): express.Router {
  const router = express.Router();
  const route =
    (handler: Route) =>
    async (req: Request, res: Response): Promise<void> => {
      try {
        await handler(req, res);
      } catch (err) {
        sendError(res, err, ctx.log);
      }
    };
  const admin = (res: Response, what: string) => authorize(callerOf(res), { type: 'admin', what });
  const name = (req: Request) => String(req.params.name);

  router.get('/users', route(async (_req, res) => {
    admin(res, 'list users');
    res.json({ users: await users.list() });
  }));
  router.post('/users', route(async (req, res) => {
    admin(res, 'create users');
    res.status(201).json(await users.create(req.body));
  }));
  router.put('/users/:name/password', route(async (req, res) => {
    const caller = callerOf(res);
    const what = "change another user's password";
    requireOwnName(caller, name(req), what);
    const target = await users.require(name(req));
    authorize(caller, { type: 'own', ownerId: target._id, what });
    const request = { ip: req.ip ?? req.socket.remoteAddress, userAgent: req.get('user-agent') };
    // an admin resets anyone's password; a user proves they hold the current one, checked as a
    // login attempt (the failure limiter and the hashing gate: no free password oracle)
    const verifyCurrent = caller.admin
      ? undefined
      : async (user: Doc, current: string) => {
          const attempt = await service.attempt({ username: String(user.username), password: current, ...request });
          if (!attempt.ok) throw attemptRefusal(res, attempt, '"currentPassword" is wrong.');
        };
    const updated = await users.setPassword(name(req), req.body, verifyCurrent);
    // every session of the user ended, the caller's too: one who changed their own password
    // gets a fresh session (cookie, like POST /login) rather than being logged out
    if (caller.userId !== updated._id) {
      res.json(publicUser(updated));
      return;
    }
    const fresh = await service.openSession(updated, request);
    setTokenCookie(res, ctx.config, fresh.token, fresh.maxAgeMs);
    res.set('Cache-Control', 'no-store');
    res.json({ ...publicUser(updated), sessionId: fresh.sessionId, expiresAt: fresh.expiresAt });
  }));
  router.put('/users/:name/role', route(async (req, res) => {
    admin(res, 'change roles');
    res.json(await users.setRole(name(req), req.body));
  }));
  // tenants: `{ tenants: ["acme", …] }` replaces the user's list (docs/server.md#tenants)
  router.get('/users/:name/tenants', route(async (req, res) => {
    const caller = callerOf(res);
    requireOwnName(caller, name(req), "read another user's tenants");
    const target = await users.require(name(req));
    authorize(caller, { type: 'own', ownerId: target._id, what: "read another user's tenants" });
    res.json({ username: target.username, tenants: (await users.publicOf(name(req))).tenants });
  }));
  router.put('/users/:name/tenants', route(async (req, res) => {
    admin(res, "change users' tenants");
    res.json(await users.setTenants(name(req), req.body));
  }));
  router.post('/users/:name/disable', route(async (req, res) => {
    admin(res, 'disable users');
    res.json(await users.setDisabled(name(req), true));
  }));
  router.post('/users/:name/enable', route(async (req, res) => {
    admin(res, 'enable users');
    res.json(await users.setDisabled(name(req), false));
  }));
  return router;
}
