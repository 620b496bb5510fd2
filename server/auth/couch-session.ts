import express, { type Request, type Response } from 'express';
import { isPlainObject } from '../../kit/index.js';
import type { AuthLocals, NodeContext } from '../context.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { sendError } from '../errors.js';
import { clearTokenCookie, setTokenCookie } from './cookies.js';
import { attemptRefusal } from './refusals.js';
import type { AuthService } from './service.js';

/** CouchDB's roles for a docstack role: an admin is CouchDB's `_admin` too. */
const couchRoles = (role: string) => (role === 'admin' ? ['_admin', 'admin'] : [role]);

/**
 * CouchDB's cookie session endpoint, for stock CouchDB clients: `POST /_session` (JSON or form
 * body `name`, `password`) logs in and sets the node's `jwtToken` cookie; `GET /_session` answers
 * the caller's `userCtx`; `DELETE /_session` ends the session. Mounted at `/_session` and at
 * `/db/_session`: PouchDB derives the server root from the database URL.
 */
export function mountCouchSession(
  router: express.Router,
  ctx: NodeContext,
  service: AuthService,
  callerOf: (req: Request, res: Response) => Promise<AuthLocals | null>,
): void {
  const paths = ['/_session', '/db/_session'];
  const form = express.urlencoded({ extended: false, limit: ctx.config.bodyLimit });

  router.post(paths, form, async (req, res) => {
    try {
      const body = isPlainObject(req.body) ? req.body : {};
      const name = body.name ?? body.username;
      const password = body.password;
      if (typeof name !== 'string' || typeof password !== 'string' || !name || !password || name.length > 100 || password.length > 1024) {
        throw SERVER_ERRORS.requestInvalid('The body must be { "name": string, "password": string } (JSON or a form).', { path: 'name' });
      }
      const result = await service.login({ username: name, password, ip: req.ip ?? req.socket.remoteAddress, userAgent: req.get('user-agent') });
      if (!result.ok) throw attemptRefusal(res, result, 'Name or password is incorrect.');
      setTokenCookie(res, ctx.config, result.token, result.maxAgeMs);
      const caller = await service.authenticate(result.token);
      res.set('Cache-Control', 'no-store');
      res.json({ ok: true, name, roles: couchRoles(caller?.user.role ?? 'user') });
    } catch (err) {
      sendError(res, err, ctx.log);
    }
  });

  router.get(paths, async (req, res) => {
    try {
      const caller = await callerOf(req, res);
      res.json({
        ok: true,
        userCtx: caller ? { name: caller.user.username, roles: couchRoles(caller.user.role) } : { name: null, roles: [] },
        info: { authentication_handlers: ['cookie', 'default'], ...(caller ? { authenticated: req.get('authorization')?.match(/^basic /i) ? 'default' : 'cookie' } : {}) },
      });
    } catch (err) {
      sendError(res, err, ctx.log);
    }
  });

  router.delete(paths, async (req, res) => {
    try {
      const caller = await callerOf(req, res);
      if (caller) await service.revoke(caller.sessionId, caller.user.username);
      clearTokenCookie(res, ctx.config);
      res.json({ ok: true });
    } catch (err) {
      sendError(res, err, ctx.log);
    }
  });
}
