import { asValue } from 'awilix';
import express, { type Request, type Response } from 'express';
import type { ClientStack } from '../index.js';
import type { NodeContext } from './context.js';
import { SERVER_ERRORS } from './errors-codes.js';
import { enforceApiAccess } from './routes/api-access.js';
import { createDocsRouter, stackFor } from './routes/docs.js';
import { createAttachmentsRouter } from './routes/attachments.js';
import { createSqlRouter } from './routes/sql.js';
import { createSecretsRouter } from './secrets/routes.js';
import { SECRETS, type SecretReader, SecretStore, secretsKey } from './secrets/store.js';
import { webhookOptions, type WebhookOptions } from './webhooks/options.js';
import { createWebhooksRouter } from './webhooks/routes.js';
import { Webhooks } from './webhooks/service.js';

/** The integration surface of one stack: its secret store and its webhooks (server only). */
export interface Integrations {
  secrets: SecretStore;
  webhooks: Webhooks;
  stop(): Promise<void>;
}

const started = new WeakMap<ClientStack, Integrations>();

/**
 * Once a stack is open on the node: the secret store (sealed under the node's key) registered in
 * the stack's container as `secrets` — what server jobs and webhook deliveries read —, the API's
 * authorization taps, and the webhooks' outbox and sender.
 */
export async function startIntegrations(ctx: NodeContext, stack: ClientStack, options: { env?: Record<string, string | undefined>; webhooks?: Partial<WebhookOptions> } = {}): Promise<Integrations> {
  const secrets = new SecretStore(stack, secretsKey(ctx.keys().privateKey));
  const reader: SecretReader = { get: (name) => secrets.get(name) };
  stack.container.register(SECRETS, asValue(Object.freeze(reader)));
  enforceApiAccess(stack);
  const webhooks = new Webhooks(stack, secrets, webhookOptions(options.env ?? {}, options.webhooks), ctx.events, ctx.log);
  await webhooks.start();
  const integrations: Integrations = {
    secrets,
    webhooks,
    stop: async () => {
      started.delete(stack);
      await webhooks.stop();
    },
  };
  started.set(stack, integrations);
  return integrations;
}

function integrationsOf(stack: ClientStack): Integrations {
  const found = started.get(stack);
  if (!found) throw SERVER_ERRORS.nodeNotReady('The node is starting; retry in a moment.');
  return found;
}

/** The routes of the integration surface, mounted under /api/private (behind requireSession). */
export function createIntegrationRouter(ctx: NodeContext): express.Router {
  const router = express.Router();
  const of = (req: Request, res: Response) => integrationsOf(stackFor(ctx, req, res));
  router.use('/docs', createAttachmentsRouter(ctx)); // files: …/:class/:id/attachments/:name
  router.use('/docs', createDocsRouter(ctx));
  router.use(createSqlRouter(ctx));
  router.use(createSecretsRouter(ctx, (req, res) => of(req, res).secrets));
  router.use(createWebhooksRouter(ctx, (req, res) => of(req, res).webhooks));
  return router;
}
