import { domainDocId, domainOf, isSingleEnd, otherEnd, referenceEnd, type DomainModel, type End } from './model.js';
import type { DomainRegistry } from './registry.js';
import { type AttributeModel, type ClassModel, type Doc, DocstackError, type WriteContext } from '../../index.js';
import { DOMAIN_ERRORS } from './errors.js';

const referenceAttributes = new WeakMap<ClassModel, AttributeModel[]>();

export function referencesOf(model: ClassModel): AttributeModel[] {
  let list = referenceAttributes.get(model);
  if (!list) {
    list = Object.values(model.schema).filter((a) => a.type === 'reference');
    referenceAttributes.set(model, list);
  }
  return list;
}

interface Placed {
  attribute: AttributeModel;
  domain: DomainModel;
  /** the end this document plays */
  end: End;
}

async function place(registry: DomainRegistry, model: ClassModel, attribute: AttributeModel): Promise<Placed> {
  const domain = await registry.find(domainOf(attribute));
  if (!domain) {
    // a domain not here may still arrive (stack.ingest holds a peer's class or document for it)
    throw DOMAIN_ERRORS.domainNotFound(`The reference "${attribute.name}" names the domain "${domainOf(attribute)}", which does not exist.`, {
      path: attribute.name,
      details: { domain: domainOf(attribute), waitingFor: [domainDocId(domainOf(attribute))] },
    });
  }
  const end = referenceEnd(domain, model.name);
  if (!end) throw placementError(domain, model.name, attribute.name);
  return { attribute, domain, end };
}

function placementError(domain: DomainModel, className: string, path: string): DocstackError {
  const where =
    domain.relation === '1:N' ? `on its target class ${domain.targetClass}` :
    domain.relation === 'N:1' ? `on its source class ${domain.sourceClass}` :
    domain.relation === '1:1' ? `on ${domain.sourceClass} or ${domain.targetClass}` :
    'nowhere (an N:N relation has no single other end; use addRelation)';
  return DOMAIN_ERRORS.attributeReferencePlacement(`A reference of the ${domain.relation} domain "${domain.name}" belongs ${where}, not on ${className}.`, {
    path,
    details: { domain: domain.name, relation: domain.relation, className },
  });
}

/** Attribute.create / Class.create: a reference attribute only where the placement table allows. */
export function referenceCheck(registry: DomainRegistry) {
  return async (model: ClassModel, attribute: AttributeModel): Promise<void> => {
    await place(registry, model, attribute);
  };
}

const sameValue = (a: unknown, b: unknown) => (a ?? null) === (b ?? null);

/**
 * validate: a reference being set must name an active document of the other class, and the
 * relation must fit the domain's cardinality as things stand (checked again, atomically, when
 * the relation is written after the document). A peer's document (origin replication) may name
 * a document arriving with it (WriteBatch.siblings); its cardinality is not checked here: its
 * relations are the peer's, and concurrent ones are settled by ./reconcile.ts.
 */
export async function validateReferences(registry: DomainRegistry, draft: Doc, ctx: WriteContext): Promise<void> {
  if (ctx.op === 'delete') return;
  for (const attribute of referencesOf(ctx.classModel)) {
    const value = draft[attribute.name];
    const previous = ctx.previous?.[attribute.name];
    if (value === undefined || value === null || sameValue(value, previous)) continue;
    const { domain, end } = await place(registry, ctx.classModel, attribute);
    const sibling = ctx.batch.siblings?.find((d) => d._id === value) ?? ctx.batch.drafts.find((d) => d._id === value && d.active !== false);
    try {
      if (sibling) registry.relations.endProblem(domain, otherEnd(end), value, sibling);
      else {
        await registry.relations.ready();
        await registry.relations.requireEnd(domain, otherEnd(end), value);
      }
    } catch (err) {
      throw DOMAIN_ERRORS.relationInvalid((err as Error).message, { path: attribute.name, details: (err as DocstackError).details, cause: err });
    }
    if (ctx.origin === 'replication') continue;
    await registry.relations.ready();
    const theirs = await registry.relations.ends.live(domain.name, otherEnd(end), value as string);
    if (isSingleEnd(domain.relation, otherEnd(end)) && theirs.some((e) => e.otherId !== draft._id)) {
      throw DOMAIN_ERRORS.relationCardinality(`${String(value)} already has its one "${domain.name}" relation; "${attribute.name}" cannot point to it too.`, {
        path: attribute.name,
        details: { domain: domain.name, existing: theirs[0].relationId },
      });
    }
    const mine = await registry.relations.ends.live(domain.name, end, draft._id);
    if (isSingleEnd(domain.relation, end) && mine.some((e) => e.otherId !== previous)) {
      throw DOMAIN_ERRORS.relationCardinality(`${draft._id} already has its one "${domain.name}" relation (added with addRelation); remove it before setting "${attribute.name}".`, {
        path: attribute.name,
        details: { domain: domain.name, existing: mine[0].relationId },
      });
    }
  }
}

/**
 * afterWrite: the relations follow the document — a reference set creates its relation, a
 * changed one moves it, null removes it, and a deleted document's relations (in every domain
 * its class takes part in) are deactivated. The document is already stored, so a failure here
 * is reported (`relation:failed` on the stack), not thrown at the caller.
 */
export async function followReferences(registry: DomainRegistry, stored: Doc, ctx: WriteContext): Promise<void> {
  const doc = ctx.batch.drafts[ctx.index] ?? stored;
  if (ctx.op === 'delete') {
    for (const domain of await registry.involving(ctx.classModel.name)) {
      await report(ctx, domain.name, doc._id, undefined, () => registry.relations.removeAllOf(domain, doc));
    }
    return;
  }
  for (const attribute of referencesOf(ctx.classModel)) {
    const value = doc[attribute.name] as string | undefined;
    const previous = ctx.previous?.[attribute.name] as string | undefined;
    if (sameValue(value, previous)) continue;
    await report(ctx, domainOf(attribute), doc._id, attribute.name, async () => {
      const { domain, end } = await place(registry, ctx.classModel, attribute);
      const pair = (other: string) => (end === 'source' ? [doc._id, other] : [other, doc._id]) as [string, string];
      if (previous) {
        const old = await registry.relations.find(domain, ...pair(previous));
        if (old) await registry.relations.remove(old);
      }
      if (value) await registry.relations.add(domain, ...pair(value), { reference: attribute.name });
    });
  }
}

async function report(ctx: WriteContext, domain: string, docId: string, attribute: string | undefined, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (err) {
    ctx.stack.emit('relation:failed', {
      domain,
      docId,
      attribute,
      code: (err as DocstackError).code,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}
