import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { isPlainObject } from '../../kit/index.js';
import type { AuthLocals, NodeContext } from '../context.js';
import { createPatchesRouter } from '../routes/patches.js';
import { createSeedRouter, ResetUnavailableError } from '../routes/seed.js';
import { clearTokenCookie, setTokenCookie, tokenOf } from './cookies.js';
import { sendError } from './errors.js';
import { attemptRefusal } from './refusals.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { authorize, callerOf } from '../authorization/index.js';
import { snapshotUsers } from './reset.js';
import { AuthService, type AuthOptions } from './service.js';
import { mountCouchSession } from './couch-session.js';
import { UserAdmin } from './user-admin.js';
import { createUserRouter } from './user-routes.js';
import { SESSION_CLASS } from './users.js';

export { sendError, statusOf, errorWord } from './errors.js';
export { hashPassword, verifyPassword } from './passwords.js';
export { USER_CLASS, SESSION_CLASS, ADMIN_ROLE, createUser, credentialOf } from './users.js';
export type { AuthOptions } from './service.js';

export interface Auth {
  /** mount at '/': POST /login, POST /logout */
  router: express.Router;
  /** before every /api/private/* and /db/* route */
  requireSession: RequestHandler;
  /** mount at '/api/private' after requireSession */
  privateRouter: express.Router;
  /**
   * Once the stack is open (and again after a reset): classes, users kept across a reset,
   * first-boot admin, session cache. `adminCreated` tells whether it created the admin now.
   */
  init(): Promise<{ adminCreated: boolean }>;
  close(): void;
}

const UNAUTHORIZED = 'Authentication required: the token is missing, invalid or expired, or its session was revoked.';
const BAD_CREDENTIALS = 'Invalid username or password.';

function locals(res: Response): AuthLocals {
  return res.locals as AuthLocals;
}

/** A JSON error for anything a route of ours threw past its own handling. */
function jsonErrors(ctx: NodeContext) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction) => sendError(res, err, ctx.log);
}

export function createAuth(ctx: NodeContext, options: AuthOptions = {}): Auth {
  const service = new AuthService(ctx, options);
  const router = express.Router();
  const privateRouter = express.Router();

  router.post('/login', async (req, res) => {
    const body = isPlainObject(req.body) ? req.body : {};
    const { username, password } = body;
    if (typeof username !== 'string' || typeof password !== 'string' || username === '' || password === '' || username.length > 100 || password.length > 1024) {
      sendError(res, SERVER_ERRORS.requestInvalid('The body must be JSON { "username": string, "password": string }.', { path: 'username' }));
      return;
    }
    const userAgent = req.get('user-agent');
    const result = await service.login({ username, password, ip: req.ip ?? req.socket.remoteAddress, userAgent });
    if (!result.ok) {
      sendError(res, attemptRefusal(res, result, BAD_CREDENTIALS));
      return;
    }
    setTokenCookie(res, ctx.config, result.token, result.maxAgeMs);
    res.set('Cache-Control', 'no-store');
    res.json({ sessionId: result.sessionId, expiresAt: result.expiresAt });
  });

  // Idempotent: without a valid session there is nothing to revoke, and the cookie goes anyway.
  router.post('/logout', async (req, res) => {
    const caller = await service.authenticate(tokenOf(req));
    if (caller) await service.revoke(caller.sessionId, caller.user.username);
    clearTokenCookie(res, ctx.config);
    res.json({ ok: true, revoked: caller !== null });
  });

  /** The caller of a request: HTTP Basic credentials, else the Bearer token or jwtToken cookie. */
  const callerOfRequest = async (req: Request, res: Response): Promise<AuthLocals | null> => {
    const header = req.get('authorization') ?? '';
    if (/^basic /i.test(header)) {
      const result = await service.authenticateBasic(header, { ip: req.ip ?? req.socket.remoteAddress, userAgent: req.get('user-agent') });
      if ('refused' in result) {
        if (result.refused !== 401) throw attemptRefusal(res, { status: result.refused, retryAfter: result.retryAfter }, BAD_CREDENTIALS);
        return null;
      }
      return result;
    }
    return service.authenticate(tokenOf(req));
  };
  mountCouchSession(router, ctx, service, (req, res) => callerOfRequest(req, res));
  router.use(jsonErrors(ctx));

  const requireSession: RequestHandler = async (req, res, next) => {
    let caller: AuthLocals | null;
    try {
      caller = await callerOfRequest(req, res);
    } catch (err) {
      sendError(res, err, ctx.log); // e.g. the stack is closed during a reset: 503
      return;
    }
    if (!caller) {
      res.set('WWW-Authenticate', 'Bearer, Basic realm="docstack"');
      sendError(res, SERVER_ERRORS.authRequired(UNAUTHORIZED));
      return;
    }
    Object.assign(res.locals, caller);
    next();
  };

  privateRouter.get('/sessions', async (_req, res) => {
    const { user, sessionId } = locals(res);
    const sessions = await service.listSessions(user.id);
    res.json({
      sessions: sessions.map((s) => ({
        id: s._id,
        createdAt: s.createdAt,
        expiresAt: s.expiresAt,
        userAgent: s.userAgent ?? null,
        ip: s.ip ?? null,
        current: s._id === sessionId,
      })),
    });
  });

  privateRouter.delete('/sessions/:id', async (req, res) => {
    const { user } = locals(res);
    const id = String(req.params.id);
    const session = await ctx.stack().getDocument(id);
    if (!session || session['~class'] !== SESSION_CLASS) {
      sendError(res, SERVER_ERRORS.sessionNotFound('No active session with that id.'));
      return;
    }
    try {
      authorize(callerOf(res), { type: 'own', ownerId: String(session.userId), what: 'revoke a session' });
    } catch (err) {
      sendError(res, err);
      return;
    }
    await service.revoke(id, user.username);
    res.json({ ok: true, id });
  });

  let resetting: Promise<void> | null = null;
  const reset = (): Promise<void> => {
    if (typeof ctx.resetStack !== 'function') return Promise.reject(new ResetUnavailableError('This node cannot reset its database (resetStack is not wired).'));
    // two admins pressing reset at once get the same reset, not two in a row
    resetting ??= (async () => {
      try {
        // users survive a reset (nobody could log in again otherwise: ADMIN_PASSWORD is first-boot
        // only); init() writes them back before it would create a first-boot admin
        const users = await snapshotUsers(ctx.stack());
        service.keepUsers(users);
        service.cache.detach();
        await ctx.resetStack();
        await service.init(); // idempotent; covers a resetStack that does not call init itself
        ctx.log(`auth: database reset; ${users.length} user(s) kept, every session revoked`);
      } finally {
        resetting = null;
      }
    })();
    return resetting;
  };

  privateRouter.use(createUserRouter(ctx, new UserAdmin(ctx, service), service));
  privateRouter.use(createSeedRouter(ctx, { reset, hostedNames: () => [ctx.config.stackName] }));
  privateRouter.use(createPatchesRouter(ctx));
  privateRouter.use(jsonErrors(ctx));

  return {
    router,
    requireSession,
    privateRouter,
    init: () => service.init(),
    close: () => service.close(),
  };
}
