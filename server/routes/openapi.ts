import type { RequestHandler } from 'express';
import { type AttributeModel, CLASS_META, type ClassModel, type ClientStack, DOMAIN_META, enumValues, SELF_META } from '../../index.js';
import { callerOf, canRead, type Caller } from '../authorization/index.js';
import type { NodeContext } from '../context.js';
import { sendError } from '../errors.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from './docs-query.js';
import { MAX_BULK, stackForRequest } from './docs.js';

type Schema = Record<string, unknown>;
const META = new Set<string>([CLASS_META, DOMAIN_META, SELF_META]);
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** The JSON Schema of one attribute's stored value (a plugin's type unknown here: any value). */
function attributeSchema(a: AttributeModel): Schema {
  let one: Schema;
  switch (a.type) {
    case 'string':
      one = { type: 'string', ...(a.maxLength !== undefined ? { maxLength: a.maxLength } : {}) };
      break;
    case 'integer':
    case 'decimal':
      one = { type: a.type === 'integer' ? 'integer' : 'number', ...(a.min !== undefined ? { minimum: a.min } : {}), ...(a.max !== undefined ? { maximum: a.max } : {}) };
      break;
    case 'boolean':
      one = { type: 'boolean' };
      break;
    case 'date':
      one = { type: 'string', ...(a.format ? { description: `a date (${a.format})` } : {}) };
      break;
    case 'enum':
      one = { type: 'string', enum: enumValues(a) };
      break;
    case 'object':
      one = { type: 'object' };
      break;
    case 'foreign_key':
      one = { type: 'string', description: `the _id of a ${String(a.targetClass)}` };
      break;
    case 'attachment':
      // the file is no body value: it has its own route (server/routes/attachments.ts)
      return { not: {}, description: `a file${a.types ? ` (${(a.types as string[]).join(', ')})` : ''}: GET/PUT/DELETE …/:id/attachments/${a.name}, never a body value` };
    default:
      one = {};
  }
  // an encrypted attribute travels sealed: the node never holds its key
  if (a.encrypted === true) one = { description: 'encrypted: a sealed payload (the node never holds the key)' };
  const schema = a.isArray === true ? { type: 'array', items: one } : one;
  return a.description ? { ...schema, description: a.description } : schema;
}

const SYSTEM: Schema = {
  _id: { type: 'string' },
  _rev: { type: 'string' },
  '~class': { type: 'string' },
  '~createTimestamp': { type: 'string', format: 'date-time' },
  '~updateTimestamp': { type: 'string', format: 'date-time' },
  active: { type: 'boolean' },
  '~scope': { type: 'string' },
  '~tx': { type: 'object' },
};

function classSchemas(model: ClassModel): Record<string, Schema> {
  const attributes = Object.fromEntries(Object.values(model.schema).map((a) => [a.name, attributeSchema(a)]));
  const mandatory = Object.values(model.schema).filter((a) => a.mandatory === true && a.defaultValue === undefined).map((a) => a.name);
  return {
    [model.name]: {
      type: 'object',
      description: model.description || `A ${model.name} document`,
      required: ['_id', '~class'],
      properties: { ...SYSTEM, '~class': { const: model.name }, ...attributes },
    },
    [`${model.name}.new`]: {
      type: 'object',
      required: mandatory,
      properties: { _id: { type: 'string', pattern: '^[^_~]', description: `Optional: \`${model.name}-<random>\` when left out; any other id but a system one (docs/data-model.md, "Ids").` }, '~class': { const: model.name }, '~scope': { type: 'string' }, ...attributes },
      additionalProperties: false,
    },
    [`${model.name}.changes`]: {
      type: 'object',
      description: 'The attributes to change; null removes one. `_rev` (or If-Match) refuses the change if the document moved on.',
      properties: { _rev: { type: 'string' }, ...Object.fromEntries(Object.entries(attributes).map(([k, s]) => [k, { anyOf: [s, { type: 'null' }] }])) },
      additionalProperties: false,
    },
    [`${model.name}.page`]: {
      type: 'object',
      required: ['docs', 'next'],
      properties: { docs: { type: 'array', items: ref(model.name) }, next: { type: ['string', 'null'], description: 'the cursor of the next page, null on the last' } },
    },
  };
}

const json = (schema: Schema) => ({ content: { 'application/json': { schema } } });
const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [String(s), { description: ERROR_TEXT[s], ...json(ref('Error')) }]));
const ERROR_TEXT: Record<number, string> = {
  400: 'malformed or refused by validation (code, path)',
  401: 'no valid session',
  403: 'refused by the node’s authorization (code, path)',
  404: 'no such class or document (or not readable by the caller)',
  409: 'the id exists or the document moved on (code)',
  422: 'the Idempotency-Key names another batch (code)',
  503: 'the node is starting',
};
const param = (name: string, description: string, schema: Schema = { type: 'string' }, where = 'query', required = false) => ({ name, in: where, required, description, schema });

function classPaths(name: string): Record<string, Schema> {
  const base = `/api/private/docs/${name}`;
  const id = param('id', 'the document id', { type: 'string' }, 'path', true);
  return {
    [base]: {
      get: {
        summary: `List ${name} documents`,
        tags: [name],
        parameters: [
          param('q', 'a Mango selector as JSON, e.g. {"status":"open"}'),
          param('fields', 'attribute names to return, comma-separated (with _id, _rev, ~class)'),
          param('sort', 'attribute names, comma-separated; "-name" descending; _id breaks ties'),
          param('limit', `documents per page (default ${DEFAULT_LIMIT})`, { type: 'integer', minimum: 1, maximum: MAX_LIMIT }),
          param('cursor', 'the `next` of the previous page'),
        ],
        responses: { '200': { description: 'a page', ...json(ref(`${name}.page`)) }, ...errors(400, 401, 404) },
      },
      post: {
        summary: `Create a ${name}`,
        tags: [name],
        requestBody: { required: true, ...json(ref(`${name}.new`)) },
        responses: { '201': { description: 'created', ...json(ref(name)) }, ...errors(400, 401, 403, 404, 409) },
      },
    },
    [`${base}/_bulk`]: {
      post: {
        summary: `Create several ${name} documents, all or none`,
        tags: [name],
        parameters: [param('Idempotency-Key', 'names the batch: a retry with the same key and documents completes it (after a crash) and answers it, never creating a document twice', { type: 'string', maxLength: 255 }, 'header')],
        requestBody: { required: true, ...json({ type: 'object', required: ['docs'], properties: { docs: { type: 'array', minItems: 1, maxItems: MAX_BULK, items: ref(`${name}.new`) } } }) },
        responses: { '201': { description: 'created', ...json({ type: 'object', required: ['docs'], properties: { docs: { type: 'array', items: ref(name) } } }) }, ...errors(400, 401, 403, 404, 409, 422) },
      },
    },
    [`${base}/{id}`]: {
      parameters: [id],
      get: { summary: `Read a ${name}`, tags: [name], responses: { '200': { description: 'the document', ...json(ref(name)) }, ...errors(401, 404) } },
      patch: {
        summary: `Change a ${name}`,
        tags: [name],
        parameters: [param('If-Match', 'the revision the change is for', { type: 'string' }, 'header')],
        requestBody: { required: true, ...json(ref(`${name}.changes`)) },
        responses: { '200': { description: 'the changed document', ...json(ref(name)) }, ...errors(400, 401, 403, 404, 409) },
      },
      delete: {
        summary: `Delete a ${name} (soft: active becomes false)`,
        tags: [name],
        parameters: [param('If-Match', 'the revision the delete is for', { type: 'string' }, 'header')],
        responses: { '200': { description: 'the deleted document', ...json(ref(name)) }, ...errors(401, 403, 404, 409) },
      },
    },
  };
}

const COMMON_SCHEMAS: Record<string, Schema> = {
  Error: {
    type: 'object',
    required: ['error', 'reason', 'code'],
    properties: { error: { type: 'string' }, reason: { type: 'string' }, code: { type: 'string', pattern: '^DS_[A-Z_]+$' }, path: { type: 'string' } },
  },
  SqlResult: {
    oneOf: [
      { type: 'object', required: ['rows'], properties: { rows: { type: 'array', items: { type: 'object' } } }, additionalProperties: false },
      { type: 'object', required: ['count', 'ids'], properties: { count: { type: 'integer' }, ids: { type: 'array', items: { type: 'string' } } }, additionalProperties: false },
    ],
  },
  Secret: { type: 'object', required: ['name', 'updatedAt'], properties: { name: { type: 'string' }, updatedAt: { type: 'string', format: 'date-time' } }, additionalProperties: false },
  WebhookEndpoint: {
    type: 'object',
    required: ['id', 'url', 'classes', 'operations', 'disabled', 'secretHeaders', 'createdAt', 'updatedAt'],
    properties: {
      id: { type: 'string' },
      url: { type: 'string' },
      classes: { type: 'array', items: { type: 'string' } },
      operations: { type: 'array', items: { enum: ['create', 'update', 'delete'] } },
      secretHeaders: { type: 'object', additionalProperties: { type: 'string' } },
      disabled: { type: 'boolean' },
      disabledReason: { type: 'string' },
      description: { type: 'string' },
      createdAt: { type: 'string' },
      updatedAt: { type: 'string' },
    },
    additionalProperties: false,
  },
  WebhookDelivery: {
    type: 'object',
    required: ['id', 'endpointId', 'webhookId', 'type', 'className', 'docId', 'rev', 'status', 'attempts', 'nextAttemptAt', 'createdAt', 'updatedAt'],
    properties: {
      id: { type: 'string' },
      endpointId: { type: 'string' },
      webhookId: { type: 'string' },
      type: { enum: ['document.created', 'document.updated', 'document.deleted'] },
      className: { type: 'string' },
      docId: { type: 'string' },
      rev: { type: 'string' },
      status: { enum: ['pending', 'retrying', 'delivered', 'dead'] },
      attempts: { type: 'integer', minimum: 0 },
      nextAttemptAt: { type: 'integer' },
      lastStatus: { type: 'integer' },
      lastError: { type: 'string' },
      createdAt: { type: 'string' },
      updatedAt: { type: 'string' },
    },
    additionalProperties: false,
  },
};

const ok = (description: string, schema: Schema) => ({ description, ...json(schema) });

/** The routes that do not depend on the classes: SQL and the admin routes of the integration surface. */
function fixedPaths(): Record<string, Schema> {
  const admin = errors(400, 401, 403, 404);
  return {
    '/api/private/sql': {
      post: {
        summary: 'Run one SQL statement (docs/sql.md) as the caller',
        tags: ['sql'],
        requestBody: { required: true, ...json({ type: 'object', required: ['statement'], properties: { statement: { type: 'string' }, params: { type: ['array', 'object'] } } }) },
        responses: { '200': ok('rows, or what a write changed', ref('SqlResult')), ...errors(400, 401, 403, 404, 409) },
      },
    },
    '/api/private/secrets': { get: { summary: 'Names of the integration secrets (admins; never a value)', tags: ['admin'], responses: { '200': ok('names', { type: 'object', required: ['secrets'], properties: { secrets: { type: 'array', items: ref('Secret') } } }), ...admin } } },
    '/api/private/secrets/{name}': {
      parameters: [param('name', 'the secret name', { type: 'string' }, 'path', true)],
      put: { summary: 'Set a secret (admins)', tags: ['admin'], requestBody: { required: true, ...json({ type: 'object', required: ['value'], properties: { value: { type: 'string' } } }) }, responses: { '200': ok('set (the value is not returned)', ref('Secret')), ...admin } },
      delete: { summary: 'Remove a secret (admins)', tags: ['admin'], responses: { '200': ok('removed', { type: 'object', required: ['ok', 'name'] }), ...admin } },
    },
    '/api/private/webhooks': {
      get: { summary: 'Webhook endpoints (admins)', tags: ['admin'], responses: { '200': ok('endpoints', { type: 'object', required: ['endpoints'], properties: { endpoints: { type: 'array', items: ref('WebhookEndpoint') } } }), ...admin } },
      post: {
        summary: 'Register a webhook endpoint (admins)',
        tags: ['admin'],
        requestBody: { required: true, ...json({ type: 'object', required: ['url', 'classes', 'secret'], properties: { url: { type: 'string' }, classes: { type: 'array', items: { type: 'string' } }, operations: { type: 'array', items: { enum: ['create', 'update', 'delete'] } }, secret: { type: 'string', description: 'whsec_… (Standard Webhooks)' }, secretHeaders: { type: 'object' }, description: { type: 'string' } } }) },
        responses: { '201': ok('registered', ref('WebhookEndpoint')), ...admin },
      },
    },
    '/api/private/webhooks/{id}': {
      parameters: [param('id', 'the endpoint id', { type: 'string' }, 'path', true)],
      get: { summary: 'A webhook endpoint (admins)', tags: ['admin'], responses: { '200': ok('the endpoint', ref('WebhookEndpoint')), ...admin } },
      patch: { summary: 'Change (or enable again) an endpoint (admins)', tags: ['admin'], requestBody: { required: true, ...json({ type: 'object' }) }, responses: { '200': ok('the endpoint', ref('WebhookEndpoint')), ...admin } },
      delete: { summary: 'Remove an endpoint (admins)', tags: ['admin'], responses: { '200': ok('removed', { type: 'object', required: ['ok', 'id'] }), ...admin } },
    },
    '/api/private/webhooks/deliveries': {
      get: {
        summary: 'Deliveries with their status, in the order of the changes feed (admins)',
        tags: ['admin'],
        parameters: [param('status', 'pending | retrying | delivered | dead'), param('endpoint', 'an endpoint id'), param('limit', 'at most this many (default 100)', { type: 'integer' }), param('cursor', 'the `next` of the previous page')],
        responses: { '200': ok('a page', { type: 'object', required: ['deliveries', 'next'], properties: { deliveries: { type: 'array', items: ref('WebhookDelivery') }, next: { type: ['string', 'null'] } } }), ...admin },
      },
    },
    '/api/private/webhooks/deliveries/{id}/retry': {
      parameters: [param('id', 'the delivery id', { type: 'string' }, 'path', true)],
      post: { summary: 'Send a dead-lettered delivery again (admins)', tags: ['admin'], responses: { '200': ok('the delivery', ref('WebhookDelivery')), ...admin } },
    },
  };
}

/**
 * The OpenAPI 3.1 description of the node's document API for this caller: one set of paths per
 * application class the caller may read (its attributes as JSON Schema), plus SQL and the admin routes.
 */
export async function buildOpenApi(stack: ClientStack, caller: Caller): Promise<Schema> {
  // application classes: the engine's own (`~…`) are not an integration surface, even where readable
  const names = (await stack.listClasses()).filter((n) => !META.has(n) && !n.startsWith('~') && canRead(caller, `${n}-x`)).sort();
  const schemas: Record<string, Schema> = { ...COMMON_SCHEMAS };
  const paths: Record<string, Schema> = {};
  for (const name of names) {
    const model = await stack.classCache.get(name);
    if (!model || model.active === false) continue;
    Object.assign(schemas, classSchemas(model));
    Object.assign(paths, classPaths(name));
  }
  return {
    openapi: '3.1.0',
    info: { title: `docstack node — ${stack.name}`, version: '1', description: 'The HTTP document API of a docstack server node (docs/server.md).' },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/' }],
    security: [{ bearer: [] }, { cookie: [] }, { basic: [] }],
    paths: { ...paths, ...fixedPaths() },
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'jwtToken' },
        basic: { type: 'http', scheme: 'basic' },
      },
    },
  };
}

/** `GET /api/openapi.json` (a session is needed: the classes are the caller's to see). */
export function createOpenApiRoute(ctx: NodeContext): RequestHandler {
  return async (req, res) => {
    try {
      res.json(await buildOpenApi(await stackForRequest(ctx, req, res), callerOf(res)));
    } catch (err) {
      sendError(res, err, ctx.log);
    }
  };
}
