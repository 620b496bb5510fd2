import express from 'express';
import { getApi, KERNEL_ERRORS } from '../../index.js';
import { patchesPlugin } from '../../plugins.config.js';
import { authorize, callerOf } from '../authorization/index.js';
import type { NodeContext } from '../context.js';
import { sendError } from '../errors.js';

/**
 * GET /api/private/patches (admins only): the versioned patches this node applied (target,
 * version, when, by which replica) and those present but not applied (waiting, or stopped with
 * their error). The node applies patches like any peer: as they arrive.
 */
export function createPatchesRouter(ctx: NodeContext): express.Router {
  const router = express.Router();
  router.get('/patches', async (_req, res) => {
    try {
      authorize(callerOf(res), { type: 'admin', what: 'list the patches' });
      const patches = getApi(ctx.stack(), patchesPlugin);
      if (!patches) throw KERNEL_ERRORS.pluginMissingRequirement('This node runs without the patches plugin.', { details: { requires: 'patches' } });
      res.json({ applied: await patches.list(), pending: await patches.pending() });
    } catch (err) {
      sendError(res, err, ctx.log);
    }
  });
  return router;
}
