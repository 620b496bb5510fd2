/**
 * GET /api/openapi.json: an OpenAPI 3.1 description generated from the routes and the class
 * models; real answers of the node (success and refusals) validate against it with ajv (JSON
 * Schema 2020-12), and an answer that does not fit the description fails.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Class } from '../../index.js';
import { createUser } from '../../server/auth/index.js';
import type { ServerNode } from '../../server/node.js';
import { fileNode, login } from './node-helpers.js';
import { signingSecret } from './webhook-receiver.js';

let node: ServerNode;
let url: string;
let admin: string;
let user: string;
let spec: any;
// ajv is CommonJS: its class is the default export's `default` under NodeNext typings
const Ajv2020 = (Ajv2020Module as unknown as { default: typeof Ajv2020Module }).default ?? Ajv2020Module;
const ajv = new (Ajv2020 as unknown as new (o: object) => import('ajv').default)({ strict: false, allErrors: true });
// the one format the description uses (ajv-formats is not a dependency): RFC 3339 date-times, as the engine stamps them
ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);

async function call(method: string, path: string, body?: unknown, token = admin) {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: (await res.json()) as unknown };
}

/** The response schema of a path template, method and status, as a $ref into the description. */
function schemaRef(template: string, method: string, status: number): string {
  const pointer = ['paths', template, method, 'responses', String(status), 'content', 'application/json', 'schema'].map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
  return `openapi.json#/${pointer}`;
}

/** Calls the node and checks the answer against the description; returns it. */
async function checked(template: string, method: string, path: string, body?: unknown, token = admin) {
  const answer = await call(method.toUpperCase(), path, body, token);
  expect(spec.paths[template]?.[method]?.responses?.[String(answer.status)], `${method} ${template} ${answer.status} is described`).toBeDefined();
  const validate = ajv.getSchema(schemaRef(template, method, answer.status)) ?? ajv.compile({ $ref: schemaRef(template, method, answer.status) });
  const valid = validate(answer.body);
  expect(valid, `${method} ${path} → ${answer.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
  return answer;
}

beforeAll(async () => {
  node = await fileNode({ adapter: 'memory' });
  ({ url } = await node.start());
  const stack = node.stack();
  await createUser(stack, 'otto', 'otto password for tests');
  admin = (await login(url)).token;
  user = (await login(url, 'otto', 'otto password for tests')).token;
  await Class.create(stack, 'Product', 'class', 'things we sell', {
    sku: { type: 'string', primaryKey: true, maxLength: 20 },
    title: { type: 'string', mandatory: true },
    price: { type: 'decimal', min: 0 },
    stock: { type: 'integer' },
    kind: { type: 'enum', values: ['book', 'toy'] },
    tags: { type: 'string', isArray: true },
    extra: { type: 'object' },
    onSale: { type: 'boolean', defaultValue: false },
    released: { type: 'date', format: 'YYYY-MM-DD' },
  });
  spec = (await call('GET', '/api/openapi.json')).body;
  ajv.addSchema(spec, 'openapi.json');
});
afterAll(() => node.stop());

describe('the OpenAPI description', () => {
  it('is OpenAPI 3.1 with the classes the caller may read, typed from their attributes', async () => {
    expect(spec.openapi).toBe('3.1.0');
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(['/api/private/docs/Product', '/api/private/docs/Product/{id}', '/api/private/docs/Product/_bulk', '/api/private/sql']));
    expect(spec.components.schemas.Product.properties).toMatchObject({ price: { type: 'number', minimum: 0 }, stock: { type: 'integer' }, kind: { enum: ['book', 'toy'] }, tags: { type: 'array' } });
    expect(spec.components.schemas['Product.new'].required).toEqual(['sku', 'title']);
    expect(Object.keys(spec.paths).some((p) => p.includes('~User') || p.includes('~Secret'))).toBe(false);
    const forUser = (await call('GET', '/api/openapi.json', undefined, user)).body as any;
    expect(Object.keys(forUser.paths).some((p) => p.includes('~'))).toBe(false);
    expect((await fetch(`${url}/api/openapi.json`)).status).toBe(401);
  });

  it('describes what every route of the document API really answers', async () => {
    const created = await checked('/api/private/docs/Product', 'post', '/api/private/docs/Product', { sku: 'B-1', title: 'A book', price: 9.5, stock: 3, kind: 'book', tags: ['new'], extra: { a: 1 }, released: '2026-01-02' }, user);
    expect(created.status).toBe(201);
    const id = (created.body as { _id: string })._id;
    await checked('/api/private/docs/Product/_bulk', 'post', '/api/private/docs/Product/_bulk', { docs: [{ sku: 'T-1', title: 'A toy', kind: 'toy' }, { sku: 'T-2', title: 'Another' }] }, user);
    await checked('/api/private/docs/Product', 'get', '/api/private/docs/Product?limit=2&sort=-sku', undefined, user);
    await checked('/api/private/docs/Product', 'get', '/api/private/docs/Product?fields=title', undefined, user);
    await checked('/api/private/docs/Product/{id}', 'get', `/api/private/docs/Product/${id}`, undefined, user);
    await checked('/api/private/docs/Product/{id}', 'patch', `/api/private/docs/Product/${id}`, { stock: 2, tags: null }, user);
    await checked('/api/private/docs/Product/{id}', 'delete', `/api/private/docs/Product/${id}`, undefined, user);
    // refusals fit the Error schema
    expect((await checked('/api/private/docs/Product', 'post', '/api/private/docs/Product', { sku: 'X' }, user)).status).toBe(400);
    expect((await checked('/api/private/docs/Product', 'post', '/api/private/docs/Product', { sku: 'T-1', title: 'dup' }, user)).status).toBe(409);
    expect((await checked('/api/private/docs/Product/{id}', 'get', `/api/private/docs/Product/${id}`, undefined, user)).status).toBe(404);
    await checked('/api/private/sql', 'post', '/api/private/sql', { statement: 'SELECT sku, title FROM Product ORDER BY sku' }, user);
    await checked('/api/private/sql', 'post', '/api/private/sql', { statement: 'UPDATE Product SET stock = 1 WHERE sku = ?', params: ['T-1'] }, user);
    await checked('/api/private/secrets/{name}', 'put', '/api/private/secrets/api-key', { value: 'v' });
    await checked('/api/private/secrets', 'get', '/api/private/secrets');
    await checked('/api/private/webhooks', 'post', '/api/private/webhooks', { url: 'http://127.0.0.1:9/x', classes: ['Product'], secret: signingSecret() });
    await checked('/api/private/webhooks', 'get', '/api/private/webhooks');
    await checked('/api/private/webhooks/deliveries', 'get', '/api/private/webhooks/deliveries');
    expect((await checked('/api/private/webhooks', 'get', '/api/private/webhooks', undefined, user)).status).toBe(403);
  });

  it('fails an answer that does not fit (the check can fail)', () => {
    const validate = ajv.compile({ $ref: schemaRef('/api/private/docs/Product/{id}', 'get', 200) });
    expect(validate({ _id: 'Product-1', '~class': 'Product', title: 'ok', stock: 'many' })).toBe(false);
    expect(validate({ _id: 'Product-1', '~class': 'Other' })).toBe(false);
    expect(validate({ _id: 'Product-1', '~class': 'Product', title: 'ok', stock: 1 })).toBe(true);
  });
});
