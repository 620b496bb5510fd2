import { Domain, type DomainRegistry } from '../domains/index.js';
import { runDocumentPass, type DocumentPass } from './documents.js';
import { PATCH_ERRORS } from './errors.js';
import type { PatchHandlerRegistry } from './handlers.js';
import type { Patch, PatchChange } from './model.js';
import { Attribute, Class, CLASS_META, type ClassModel, type ClientStack, type Doc, DOMAIN_META } from '../../index.js';
import { checkDefaultValue, normalizeAttribute, ruleContext, toFlatAttribute } from '../../kit/index.js';

export interface ChangeContext {
  stack: ClientStack;
  patch: Patch;
  handlers: PatchHandlerRegistry;
  /** the domains plugin's registry when it is loaded */
  domains: DomainRegistry | undefined;
  /** the document pass of this change, minus what the change decides */
  pass: Omit<DocumentPass, 'className' | 'includeInactive' | 'step'>;
}

const invalid = (message: string, path: string) => PATCH_ERRORS.patchInvalid(message, { path });

/**
 * Applies one change. Every change is idempotent on a replica that already holds its result:
 * class and domain documents travel by replication too, and may arrive before the patch.
 */
export async function applyChange(change: PatchChange, ctx: ChangeContext): Promise<void> {
  const { stack } = ctx;
  switch (change.kind) {
    case 'addClass': {
      const existing = await stack.classCache.get(change.name);
      if (existing && existing.active !== false) return;
      await Class.create(stack, change.name, CLASS_META, change.description ?? '', change.schema ?? {}, change.options ?? {});
      return;
    }
    case 'addAttribute': {
      const model = await stack.requireClass(change.className);
      if (model.schema[change.name]) return;
      // the attribute model as the specification writes it ({ name, type, config, description? }),
      // or with its config keys beside name and type
      const { kind: _kind, className: _className, ...attribute } = change;
      const { name, type, description, ...config } = toFlatAttribute(attribute, change.name);
      await Attribute.create(await stack.getClassSnapshot(change.className), name as string, type as string, description as string | undefined, config);
      return;
    }
    case 'updateAttribute':
      return updateAttribute(stack, change);
    case 'renameAttribute':
      return renameAttribute(ctx, change);
    case 'removeAttribute':
      return removeAttribute(ctx, change);
    case 'addDomain': {
      if (!ctx.domains) throw PATCH_ERRORS.patchFailed('addDomain needs the domains plugin on this stack.', { details: { domain: change.name } });
      if (await ctx.domains.find(change.name)) return;
      // a null id: the id is the name and the document domain-<name> (domainDocId), so replicas
      // applying the patch on their own write one document
      await Domain.create(stack, null, change.name, DOMAIN_META, change.relation, change.sourceClass, change.targetClass, change.description ?? '');
      return;
    }
    case 'migrate': {
      const handler = ctx.handlers.require(change.handler, { path: 'handler' });
      const params = change.params ?? {};
      const { target, version } = ctx.patch;
      await runDocumentPass({
        ...ctx.pass,
        className: change.className,
        includeInactive: false,
        // the handler sees the document as a read shows it (decrypted where the stack can)
        step: async (raw) => (await handler(await stack.hooks.afterRead.promise({ ...raw }, { stack }), { params, stack, target, version })) ?? undefined,
      });
      return;
    }
  }
}

async function saveSchema(stack: ClientStack, className: string, change: (model: ClassModel) => Promise<void> | void): Promise<void> {
  const cls = await stack.getClassSnapshot(className);
  await cls.saveModel(async (model) => {
    await change(model);
    return model;
  });
}

const FIXED_KEYS = ['name', 'type'];

async function updateAttribute(stack: ClientStack, change: Extract<PatchChange, { kind: 'updateAttribute' }>): Promise<void> {
  // the changed keys in `config`, or beside className and name (the flat form)
  const { kind: _kind, className: _className, name: _name, ...keys } = change;
  const fixed = [...Object.keys(keys), ...Object.keys(change.config ?? {})].filter((k) => FIXED_KEYS.includes(k));
  if (fixed.length > 0) throw invalid(`updateAttribute changes config keys, not ${fixed.join(', ')} (use renameAttribute).`, 'config');
  const changes = toFlatAttribute(keys, change.name);
  await saveSchema(stack, change.className, async (model) => {
    const current = model.schema[change.name];
    if (!current) throw invalid(`The class "${model.name}" has no attribute "${change.name}".`, 'name');
    const merged: Record<string, unknown> = { ...current };
    // null removes a key: the stored patch is JSON, where undefined does not exist
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
    const attribute = await normalizeAttribute(merged, ruleContext(stack, model));
    await checkDefaultValue(stack, model, attribute);
    model.schema[change.name] = attribute;
  });
}

async function renameAttribute(ctx: ChangeContext, change: Extract<PatchChange, { kind: 'renameAttribute' }>): Promise<void> {
  const { stack } = ctx;
  const { from, to } = change;
  const model = await stack.requireClass(change.className);
  if (model.schema[from] && model.schema[to]) throw invalid(`"${model.name}" has both "${from}" and "${to}": nothing to rename into.`, 'to');
  if (model.schema[from]) {
    // a sealed value is bound to its attribute's name: moving it would make it unreadable
    if (model.schema[from].encrypted === true) throw invalid(`"${from}" is encrypted: its values cannot move to another attribute.`, 'from');
    await saveSchema(stack, model.name, async (m) => {
      const attribute = await normalizeAttribute({ ...m.schema[from], name: to }, ruleContext(stack, m));
      m.schema = Object.fromEntries(Object.entries(m.schema).map(([k, a]) => (k === from ? [to, attribute] : [k, a])));
    });
  } else if (!model.schema[to]) {
    throw invalid(`The class "${model.name}" has no attribute "${from}".`, 'from');
  }
  // per document: a document that already has no `from` (moved here before, or by a peer) is left alone
  await runDocumentPass({
    ...ctx.pass,
    className: model.name,
    includeInactive: true,
    step: (doc: Doc) => (doc[from] === undefined ? undefined : { [to]: doc[from], [from]: null }),
  });
}

async function removeAttribute(ctx: ChangeContext, change: Extract<PatchChange, { kind: 'removeAttribute' }>): Promise<void> {
  const { stack } = ctx;
  const model = await stack.requireClass(change.className);
  const attribute = model.schema[change.name];
  if (attribute?.primaryKey === true) throw invalid(`"${change.name}" is part of the primary key of "${model.name}": it cannot be removed.`, 'name');
  if (attribute) {
    await saveSchema(stack, model.name, (m) => {
      delete m.schema[change.name];
    });
  }
  await runDocumentPass({
    ...ctx.pass,
    className: model.name,
    includeInactive: true,
    step: (doc: Doc) => (doc[change.name] === undefined ? undefined : { [change.name]: null }),
  });
}
