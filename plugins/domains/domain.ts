import { EventEmitter } from 'events';
import { DOMAIN_NAME, domainDocId, domainIdOf, MAX_ID_LENGTH, RELATION_KINDS, relationPrefix, type DomainModel, type RelationDoc, type RelationKind } from './model.js';
import type { RelationStore } from './relations.js';
import { Class, type ClientStack, type Doc, DocstackError, DOMAIN_META, type Selector } from '../../index.js';
import { whileObserved } from '../../kit/index.js';
import { DOMAIN_ERRORS } from './errors.js';

/**
 * What a domain needs of its stack's registry (DomainRegistry fits it): named here so this file
 * need not import registry.ts, which builds Domain objects.
 */
export interface DomainHost {
  readonly relations: RelationStore;
  find(name: string): Promise<DomainModel | null>;
  all(): Promise<DomainModel[]>;
  use(model: DomainModel): Domain;
  forget(): void;
}

/**
 * A domain: a typed relation between a source class and a target class with a cardinality
 * (1:1, 1:N, N:1, N:N), and the relations in it. A live domain object (`stack.useDomain`)
 * emits `change` ({ id, rev, deleted }) for relation documents of the domain, from any writer
 * of the store, while it has listeners.
 */
export class Domain extends EventEmitter {
  private stopObserving: (() => void) | null = null;

  constructor(
    readonly stack: ClientStack,
    private readonly registry: DomainHost,
    readonly model: DomainModel,
  ) {
    super();
  }

  get name(): string {
    return this.model.name;
  }

  /** The SPEC's id: the one Domain.create was given, or the name when it was given null. */
  get id(): string {
    return domainIdOf(this.model);
  }

  /** The domain document's `_id`: `domain-<name>` (`domain-<id>` for one an older version stored). */
  get docId(): string {
    return this.model._id;
  }

  get type(): typeof DOMAIN_META {
    return DOMAIN_META;
  }

  /** `Domain.create(stack, id | null, name, 'domain', relation, sourceClass, targetClass, description?)` */
  static async create(
    stack: ClientStack,
    id: string | null,
    name: string,
    type: string,
    relation: RelationKind,
    sourceClassOrName: Class | string,
    targetClassOrName: Class | string,
    description = '',
  ): Promise<Domain> {
    const registry = domainRegistryOf(stack);
    // the specification passes Class objects; a class name is accepted too. The domain document
    // stores the name either way (documents hold names, not objects).
    const sourceClass = classNameOf(sourceClassOrName);
    const targetClass = classNameOf(targetClassOrName);
    if (type !== DOMAIN_META) throw DOMAIN_ERRORS.domainInvalid(`Domain.create makes documents of the "domain" meta-class, not "${type}".`, { path: 'type' });
    if (typeof name !== 'string' || !DOMAIN_NAME.test(name) || name.length > 64) {
      throw DOMAIN_ERRORS.domainInvalid(`A domain name starts with a letter and holds letters, digits and "_" only (got ${JSON.stringify(name)}).`, { path: 'name' });
    }
    if (id !== null && id !== undefined && (typeof id !== 'string' || id === '' || id.length > MAX_ID_LENGTH)) {
      throw DOMAIN_ERRORS.domainInvalid(`A domain id is null (the name is used) or a string of 1 to ${MAX_ID_LENGTH} characters (got ${JSON.stringify(id)}).`, { path: 'id' });
    }
    if (!(RELATION_KINDS as readonly string[]).includes(relation)) {
      throw DOMAIN_ERRORS.domainInvalid(`The relation of a domain is one of ${RELATION_KINDS.join(', ')} (got ${JSON.stringify(relation)}).`, { path: 'relation' });
    }
    for (const [path, cls] of [['sourceClass', sourceClass], ['targetClass', targetClass]] as const) {
      const model = typeof cls === 'string' ? await stack.classCache.get(cls) : null;
      if (!model || model.active === false || model['~class'] !== 'class') {
        throw DOMAIN_ERRORS.domainInvalid(`The ${path} of the domain "${name}" must be a class (got ${JSON.stringify(cls)}).`, { path });
      }
      if (model.simple) throw DOMAIN_ERRORS.domainInvalid(`"${cls}" is a simple class: its documents have no relation checks.`, { path });
    }
    if (await registry.find(name)) throw DOMAIN_ERRORS.domainExists(`A domain named "${name}" already exists.`, { path: 'name' });
    // null: the service makes the id — the name, the same on every device that creates the domain
    const domainId = id ?? name;
    registry.forget(); // the list as it is now, not as cached
    const taken = (await registry.all()).find((d) => domainIdOf(d) === domainId);
    if (taken) throw DOMAIN_ERRORS.domainExists(`The domain "${taken.name}" already has the id ${JSON.stringify(domainId)}.`, { path: 'id' });
    try {
      const doc = await stack.createDoc(
        { '~class': DOMAIN_META, type: DOMAIN_META, id: domainId, name, description, relation, sourceClass, targetClass },
        // the document is `domain-<name>` whatever the id: relations name their domain only (model.ts domainDocId)
        { id: domainDocId(name) },
      );
      registry.forget();
      return registry.use(doc as DomainModel);
    } catch (err) {
      if ((err as DocstackError).code === 'DS_UNIQUE_VIOLATION') throw DOMAIN_ERRORS.domainExists(`A domain named "${name}" already exists.`, { path: 'name' });
      throw err;
    }
  }

  /** Relates `document` (the source: a document or its id) to `referenceId` (the target). */
  async addRelation(document: Doc | string, referenceId: string): Promise<RelationDoc> {
    return this.registry.relations.add(this.model, idOf(document), referenceId);
  }

  /** Resolves true when addRelation would succeed now; else throws its error. Writes nothing. */
  async validateRelation(document: Doc | string, referenceId: string): Promise<true> {
    await this.registry.relations.check(this.model, idOf(document), referenceId);
    return true;
  }

  /** Active relations of the domain matching a Mango selector (on sourceId, targetId, …). */
  getRelations(selector?: Selector, fields?: string[], skip?: number, limit?: number): Promise<Doc[]> {
    return this.registry.relations.list(this.model, selector, fields, skip, limit);
  }

  async deleteRelation(sourceId: string, targetId: string): Promise<void> {
    const relation = await this.registry.relations.find(this.model, sourceId, targetId);
    if (!relation) {
      throw DOMAIN_ERRORS.relationNotFound(`${sourceId} and ${targetId} are not related in "${this.name}".`, { details: { domain: this.name, sourceId, targetId } });
    }
    await this.registry.relations.remove(relation);
  }

  /** Follows relation documents of the domain on the stack's change feed while observed. */
  subscribe(): this {
    if (this.stopObserving) return this;
    const prefix = relationPrefix(this.name);
    this.stopObserving = whileObserved(this, ['change'], () =>
      this.stack.changes.subscribe((change) => {
        if (change.id.startsWith(prefix)) this.emit('change', { id: change.id, rev: change.rev, deleted: change.deleted });
      }),
    );
    return this;
  }

  unsubscribe(): void {
    this.stopObserving?.();
    this.stopObserving = null;
  }
}

function idOf(document: Doc | string): string {
  return typeof document === 'string' ? document : document?._id;
}

/** The stack's domain registry (registered by the domains plugin), or a clear error. */
function domainRegistryOf(stack: ClientStack): DomainHost {
  const registry = (stack as unknown as { domains?: DomainHost }).domains;
  if (!registry) throw DOMAIN_ERRORS.domainNotFound('This stack does not load the domains plugin.');
  return registry;
}

function classNameOf(cls: Class | string): string {
  return cls instanceof Class ? cls.name : (cls as string);
}
