import { Domain } from './domain.js';
import type { DomainModel } from './model.js';
import { RelationStore } from './relations.js';
import { type ClientStack, DOMAIN_META } from '../../index.js';
import { DOMAIN_ERRORS } from './errors.js';

/** How long the list of domains is trusted before it is read again (other writers may add domains). */
export const DOMAIN_LIST_TTL_MS = 1000;

/**
 * The domains of one stack: live domain objects by name, the relation store, and the list of
 * domains (read once a second at most: deletes ask "which domains involve this class?" for
 * every deleted document).
 */
export class DomainRegistry {
  readonly relations: RelationStore;
  private readonly live = new Map<string, Domain>();
  private listed: { at: number; domains: DomainModel[] } | null = null;

  constructor(readonly stack: ClientStack) {
    this.relations = new RelationStore(stack);
  }

  /** The active domain document of that name (primary-key index on the domain meta-class), or null. */
  async find(name: string): Promise<DomainModel | null> {
    if (typeof name !== 'string' || name === '') return null;
    const meta = await this.stack.getClass(DOMAIN_META);
    const indexed = (await meta.getByPrimaryKeys({ name })) as DomainModel | null;
    if (indexed) return indexed;
    // a domain that arrived by replication is not in this peer's key index: domains are few,
    // their ids one key range, so a scan finds it
    const [found] = await this.stack.findDocuments(DOMAIN_META, { name }, { limit: 1 });
    return (found as DomainModel | undefined) ?? null;
  }

  /** The live domain object of that name; DS_DOMAIN_NOT_FOUND when there is none. */
  async useByName(name: string): Promise<Domain> {
    const cached = this.live.get(name);
    if (cached) return cached;
    const model = await this.find(name);
    if (!model) throw DOMAIN_ERRORS.domainNotFound(`There is no domain named ${JSON.stringify(name)}.`, { details: { domain: name } });
    return this.use(model);
  }

  use(model: DomainModel): Domain {
    let domain = this.live.get(model.name);
    if (!domain) {
      domain = new Domain(this.stack, this, model).subscribe();
      this.live.set(model.name, domain);
    }
    return domain;
  }

  /** Domains in which the class is the source or the target. */
  async involving(className: string): Promise<DomainModel[]> {
    return (await this.all()).filter((d) => d.sourceClass === className || d.targetClass === className);
  }

  /** The active domains (listed again after DOMAIN_LIST_TTL_MS, or after this stack creates one). */
  async all(): Promise<DomainModel[]> {
    if (!this.listed || this.stack.clock.now() - this.listed.at > DOMAIN_LIST_TTL_MS) {
      const domains = (await this.stack.findDocuments(DOMAIN_META)) as DomainModel[];
      this.listed = { at: this.stack.clock.now(), domains };
    }
    return this.listed.domains;
  }

  /** After this stack creates a domain: list again next time. */
  forget(): void {
    this.listed = null;
  }

  close(): void {
    for (const domain of this.live.values()) domain.unsubscribe();
    this.live.clear();
  }
}
