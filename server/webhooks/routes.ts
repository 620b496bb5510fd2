import express, { type Request, type Response } from 'express';
import type { NodeContext } from '../context.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { adminRoute } from '../http.js';
import { DELIVERY_STATUSES, type DeliveryStatus, publicDelivery } from './deliveries.js';
import { publicEndpoint } from './endpoints.js';
import type { Webhooks } from './service.js';

/**
 * Admin routes of the webhooks (under /api/private): endpoints (`/webhooks`, `/webhooks/:id`)
 * and deliveries with their status (`/webhooks/deliveries`, `…/:id/retry`). No answer carries a
 * signing secret.
 */
export function createWebhooksRouter(ctx: NodeContext, webhooksFor: (req: Request, res: Response) => Webhooks): express.Router {
  const router = express.Router();
  const admin = (handler: (webhooks: Webhooks, req: Request, res: Response) => Promise<void>) =>
    adminRoute(ctx.log, 'manage webhooks', (req, res) => handler(webhooksFor(req, res), req, res));
  const id = (req: Request) => String(req.params.id);

  router.get('/webhooks/deliveries', admin(async (webhooks, req, res) => {
    const q = req.query as Record<string, unknown>;
    const status = q.status;
    if (status !== undefined && !DELIVERY_STATUSES.includes(status as DeliveryStatus)) throw SERVER_ERRORS.requestInvalid(`status must be one of ${DELIVERY_STATUSES.join(', ')}.`, { path: 'status' });
    const limit = q.limit === undefined ? 100 : Number(q.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw SERVER_ERRORS.requestInvalid('limit must be a whole number from 1 to 1000.', { path: 'limit' });
    if ((q.endpoint !== undefined && typeof q.endpoint !== 'string') || (q.cursor !== undefined && typeof q.cursor !== 'string')) throw SERVER_ERRORS.requestInvalid('endpoint and cursor are ids.', { path: 'cursor' });
    const page = await webhooks.deliveries.list({ limit, ...(status ? { status: status as DeliveryStatus } : {}), ...(q.endpoint ? { endpointId: q.endpoint as string } : {}), ...(q.cursor ? { after: q.cursor as string } : {}) });
    res.json({ deliveries: page.deliveries.map(publicDelivery), next: page.next });
  }));
  router.get('/webhooks/deliveries/:id', admin(async (webhooks, req, res) => {
    const delivery = await webhooks.deliveries.get(id(req));
    if (!delivery) throw SERVER_ERRORS.webhookNotFound(`There is no delivery ${JSON.stringify(id(req))}.`);
    res.json(publicDelivery(delivery));
  }));
  router.post('/webhooks/deliveries/:id/retry', admin(async (webhooks, req, res) => void res.json(publicDelivery(await webhooks.retry(id(req))))));

  router.get('/webhooks', admin(async (webhooks, _req, res) => void res.json({ endpoints: webhooks.list().map(publicEndpoint) })));
  router.post('/webhooks', admin(async (webhooks, req, res) => void res.status(201).json(publicEndpoint(await webhooks.register(req.body)))));
  router.get('/webhooks/:id', admin(async (webhooks, req, res) => void res.json(publicEndpoint(webhooks.get(id(req))))));
  router.patch('/webhooks/:id', admin(async (webhooks, req, res) => void res.json(publicEndpoint(await webhooks.update(id(req), req.body)))));
  router.delete('/webhooks/:id', admin(async (webhooks, req, res) => {
    await webhooks.remove(id(req));
    res.json({ ok: true, id: id(req) });
  }));
  return router;
}
