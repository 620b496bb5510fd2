import express, { type Request, type Response } from 'express';
import { authorize, callerOf } from '../authorization/index.js';
import type { NodeContext } from '../context.js';
import { sendError } from '../errors.js';
import type { UserAdmin } from './user-admin.js';

type Route = (req: Request, res: Response) => Promise<unknown>;

/**
 * `/api/private/users…` (behind the session check): admins manage users; a user changes only
 * their own password, with the current one. Nobody changes their own role unless an admin.
 */
export function createUserRouter(ctx: NodeContext, users: UserAdmin): express.Router {
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
    const target = await users.require(name(req));
    authorize(caller, { type: 'own', ownerId: target._id, what: "change another user's password" });
    // an admin resets anyone's password; a user proves they hold the current one
    res.json(await users.setPassword(name(req), req.body, !caller.admin));
  }));
  router.put('/users/:name/role', route(async (req, res) => {
    admin(res, 'change roles');
    res.json(await users.setRole(name(req), req.body));
  }));
  // tenants: `{ tenants: ["acme", …] }` replaces the user's list (docs/server.md#tenants)
  router.get('/users/:name/tenants', route(async (req, res) => {
    const caller = callerOf(res);
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
