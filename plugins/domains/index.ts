import { admitRelation } from './admit.js';
import { domainMetaClassPatch } from './meta-class-patch.js';
import { domainSpecShapePatch } from './spec-shape-patch.js';
import type { Domain } from './domain.js';
import { followReferences, referencesOf, validateReferences } from './references.js';
import { referenceType } from './reference-type.js';
import { domainErrorList } from './errors.js';
import { reconcileDocument } from './reconcile.js';
import { DomainRegistry } from './registry.js';
import { definePlugin, type ClassModel, type Doc, type WriteContext, type WriteOp, type WriteOrigin } from '../../index.js';
import { tapWhen } from '../../kit/index.js';


/** Runs after the validation plugin's checks: a reference is checked once its value is valid. */
const STAGE = 10;

/**
 * Domains and relations: typed relations between classes with enforced cardinality, reference
 * attributes that keep their relation in step, and relations deactivated with their documents.
 */
export const domainsPlugin = definePlugin({
  name: 'domains',
  errors: domainErrorList,
  patches: [domainMetaClassPatch, domainSpecShapePatch],
  setup({ hooks, stack, defineAttribute }): DomainRegistry {
    const registry = new DomainRegistry(stack);
    defineAttribute(referenceType(registry));
    hooks.validate.tapPromise(tapWhen('domains', (model) => referencesOf(model).length > 0, STAGE), (draft, ctx) => validateReferences(registry, draft, ctx));
    hooks.admit.tapPromise('domains', (item) => admitRelation(stack, registry, item));
    // a local create or update of a class without reference attributes has no relation to
    // follow: its plan leaves this tap out (and the answer's copy an afterWrite tap costs); a
    // delete may end relations of any class (its document may be a relation's target)
    const follows = (model: ClassModel, origin: WriteOrigin, op?: WriteOp) => origin === 'replication' || (op !== 'create' && op !== 'update') || referencesOf(model).length > 0;
    hooks.afterWrite.tapAsync(tapWhen('domains', follows, STAGE), (docs, ctx, done) => {
      // the same rule when tapable runs the whole hook (an interceptor, stack.ingest)
      if (!follows(ctx.classModel, ctx.origin, ctx.op)) return done();
      followWrite(docs, ctx).then(() => done(), (err: Error) => done(err));
    });
    const followWrite = async (docs: Doc[], ctx: WriteContext): Promise<void> => {
      // a peer's document arrives with its relations: they are the peer's to write, not ours;
      // replicas settle them by the document's winning revision (./reconcile.ts)
      if (ctx.origin === 'replication') {
        for (const doc of docs) await reconcileDocument(registry, doc._id, ctx.classModel.name);
        return;
      }
      for (const doc of docs) await followReferences(registry, doc, ctx);
    };
    hooks.onClose.tap('domains', () => registry.close());
    return registry;
  },
  members: (registry) => ({
    /** The domains plugin's registry: relation store and live domains. */
    domains: registry,
    /** The live domain object of that name. */
    useDomain: (name: string): Promise<Domain> => registry.useByName(name),
  }),
});

export { Domain } from './domain.js';
export { relationPrefix, type DomainModel, type RelationDoc, type RelationKind } from './model.js';
export type { DomainRegistry } from './registry.js';
export type { ReferenceAttribute } from './reference-type.js';
