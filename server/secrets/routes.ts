import express, { type Request, type Response } from 'express';
import { isPlainObject } from '../../kit/index.js';
import type { NodeContext } from '../context.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { adminRoute } from '../http.js';
import type { SecretStore } from './store.js';

/**
 * Admin routes of the secret store (mounted under /api/private): `PUT /secrets/:name` { value },
 * `GET /secrets` (names and dates), `DELETE /secrets/:name`. No answer ever holds a value.
 */
export function createSecretsRouter(ctx: NodeContext, storeFor: (req: Request, res: Response) => SecretStore): express.Router {
  const router = express.Router();
  const admin = (handler: (store: SecretStore, req: Request, res: Response) => Promise<void>) =>
    adminRoute(ctx.log, 'manage the secrets', (req, res) => handler(storeFor(req, res), req, res));
  router.get('/secrets', admin(async (store, _req, res) => void res.json({ secrets: await store.list() })));
  router.put('/secrets/:name', admin(async (store, req, res) => {
    const name = String(req.params.name);
    if (name.startsWith('~')) throw SERVER_ERRORS.secretInvalid('Names starting with "~" are the node\'s own.', { path: 'name' });
    const value = isPlainObject(req.body) ? req.body.value : undefined;
    res.json(await store.set(name, value));
  }));
  router.delete('/secrets/:name', admin(async (store, req, res) => {
    const name = String(req.params.name);
    if (name.startsWith('~') || !(await store.remove(name))) throw SERVER_ERRORS.secretNotFound(`There is no secret named ${JSON.stringify(name)}.`, { path: 'name' });
    res.json({ ok: true, name });
  }));
  return router;
}
