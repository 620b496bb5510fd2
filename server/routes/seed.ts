import express, { type NextFunction, type Request, type Response } from 'express';
import { Attribute, Class, CLASS_META, KERNEL_ERRORS } from '../../index.js';
import { isPlainObject, toClassDocument, toFlatAttribute } from '../../kit/index.js';
import { authorize, callerOf } from '../authorization/index.js';
import type { NodeContext } from '../context.js';
import { sendError } from '../errors.js';
import { SERVER_ERRORS } from '../errors-codes.js';

export interface SeedRouteDeps {
  /** destroys the node's database and opens it again empty (users kept: see docs/server-auth.md) */
  reset(): Promise<void>;
  /** names of the stacks this node hosts; `clear` accepts only these */
  hostedNames(): string[];
}

/** Thrown when the node cannot reset (NodeContext.resetStack is not wired). */
export class ResetUnavailableError extends Error {
  readonly status = 501;
}

/** Reset and clear: admins only (server/authorization). */
function adminOnly(req: Request, res: Response, next: NextFunction): void {
  try {
    authorize(callerOf(res), { type: 'admin', what: 'reset or clear a database' });
    next();
  } catch (err) {
    sendError(res, err);
  }
}

/**
 * Schema routes pass the node's one authorization check: admins only, never a meta-class
 * (`class`, `domain`, `~self`) nor an engine-internal `~` class. Answers the refusal itself.
 */
function refuseSchemaChange(res: Response, className: string): boolean {
  try {
    authorize(callerOf(res), { type: 'schema', className });
    return false;
  } catch (err) {
    sendError(res, err);
    return true;
  }
}

function bodyOf(req: Request): Record<string, unknown> {
  return isPlainObject(req.body) ? req.body : {};
}

/**
 * The seed's private routes (mounted under /api/private, behind requireSession):
 * create-class, create-attribute, reset, clear, test.
 */
export function createSeedRouter(ctx: NodeContext, deps: SeedRouteDeps): express.Router {
  const router = express.Router();

  // readiness probe: reaching it means the node is up and the caller's session is valid
  router.get('/test', (_req, res) => {
    res.json({ ok: true });
  });

  router.post('/create-class/:name', async (req, res) => {
    const name = String(req.params.name);
    if (refuseSchemaChange(res, name)) return;
    const body = bodyOf(req);
    try {
      const cls = await Class.create(
        ctx.stack(),
        name,
        CLASS_META,
        (body.description ?? '') as string,
        (body.schema ?? {}) as Record<string, Record<string, unknown>>,
        (body.options ?? {}) as Record<string, unknown>,
      );
      // answered as stored: attributes in the specification's shape { name, type, config }
      res.status(201).json(toClassDocument(cls.model));
    } catch (err) {
      sendError(res, err, ctx.log);
    }
  });

  router.put('/create-attribute/:name', async (req, res) => {
    const className = String(req.params.name);
    if (refuseSchemaChange(res, className)) return;
    const body = bodyOf(req);
    try {
      const stack = ctx.stack();
      const cls = await stack.getClassSnapshot(className); // DS_CLASS_NOT_FOUND → 404
      if (body.config !== undefined && !isPlainObject(body.config)) {
        throw KERNEL_ERRORS.attributeConfigInvalid('The attribute config must be an object.', { path: 'config' });
      }
      if (body.description !== undefined && typeof body.description !== 'string') {
        throw KERNEL_ERRORS.attributeInvalid('The attribute description must be a string.', { path: 'description' });
      }
      // the specification's { name, type, config, description? }, or its config keys beside name and type
      const { name, type, description, ...config } = toFlatAttribute(body, String(body.name));
      await Attribute.create(cls, name as string, type as string, description as string | undefined, config);
      res.json(toClassDocument(await stack.requireClass(className)));
    } catch (err) {
      sendError(res, err, ctx.log);
    }
  });

  const reset = async (res: Response, what: string) => {
    try {
      await deps.reset();
      res.json({ ok: true, reset: what });
    } catch (err) {
      sendError(res, err instanceof ResetUnavailableError ? SERVER_ERRORS.resetUnavailable(err.message) : err, ctx.log);
    }
  };

  router.get('/reset', adminOnly, async (_req, res) => {
    await reset(res, ctx.config.stackName);
  });

  // Only a name this node hosts, compared exactly: never a path, so "../x" or "a/b" are 404.
  const clear = async (conn: string, res: Response) => {
    if (!deps.hostedNames().includes(conn)) {
      sendError(res, SERVER_ERRORS.databaseNotFound('This node hosts no connection by that name.'));
      return;
    }
    await reset(res, conn);
  };
  router.get('/clear/:conn', adminOnly, async (req, res) => {
    await clear(String(req.params.conn), res);
  });
  // the specification's shape `/clear:conn`, with its literal colon: a regex, because Express 5
  // paths read ":conn" as a parameter. The colon is required: `/cleardocstack` is no route.
  router.get(/^\/clear:([^/]+)$/, adminOnly, async (req, res) => {
    await clear(String((req.params as Record<string, string>)[0]), res);
  });

  return router;
}
