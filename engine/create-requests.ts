import type { ClassModel, Doc } from '../contracts/model.js';
import { classNameOf, createDraft, requireObject } from '../kernel/drafts.js';
import type { WriteRequest } from '../kernel/pipeline.js';

export interface CreateRequests {
  requests: WriteRequest[];
  /** the ids callers chose (checked as free before the write) */
  chosenIds: string[];
}

/**
 * The pipeline requests of a createDocs call: each input checked and turned into its draft,
 * against the class `classOf` names — or null as soon as it names none (the class must be read
 * first: stack.createDocs then reads every class of the call and builds them again). Synchronous,
 * so a serial writer's createDoc adds no promise of its own to the pipeline's.
 */
export function createRequests(docs: readonly unknown[], now: string, classOf: (name: string) => ClassModel | undefined, systemFields: ReadonlySet<string>): CreateRequests | null {
  const requests: WriteRequest[] = [];
  const chosenIds: string[] = [];
  let lastName: string | undefined;
  let model: ClassModel | undefined;
  for (const input of docs) {
    const doc = requireObject(input, 'A document');
    const className = classNameOf(doc);
    if (className !== lastName) {
      model = classOf(className);
      if (!model) return null;
      lastName = className;
    }
    const draft = createDraft(doc, model!, undefined, now, systemFields);
    if (doc._id !== undefined) chosenIds.push(draft._id);
    requests.push({ op: 'create', draft, classModel: model! });
  }
  return { requests, chosenIds };
}

/** The class names a createDocs call names, in their first order (each once). */
export function classNamesOf(docs: readonly unknown[]): string[] {
  const names = new Set<string>();
  for (const input of docs) names.add(classNameOf(requireObject(input, 'A document')));
  return [...names];
}

/** A one-document write's answer: its one document. */
export const firstOf = (docs: Doc[]): Doc => docs[0];

/** What createDocuments needs of its stack (made once per stack). */
export interface CreateDeps<O> {
  /** the class when the cache holds it fresh (no I/O), else undefined */
  fresh(name: string): ClassModel | undefined;
  /** the class, read (DS_CLASS_NOT_FOUND when there is none) */
  read(name: string): Promise<ClassModel>;
  now(): string;
  systemFields(): ReadonlySet<string>;
  /** the requests written with the caller's options (ids callers chose checked free first); `first`: answers the first document, not the list */
  store(built: CreateRequests, options: O, first?: boolean): Promise<Doc[] | Doc>;
}

/**
 * stack.createDoc / createDocs: no async frame of its own while every class is cached fresh (the
 * usual write: the pipeline's promise is the caller's); else each class of the call read once,
 * then the same. Throws synchronously for what it refuses before a class is read: the stack turns
 * that into a rejected promise.
 */
export function createDocuments<O>(docs: readonly unknown[], deps: CreateDeps<O>, options: O): Promise<Doc[]> {
  const built = createRequests(docs, deps.now(), deps.fresh, deps.systemFields());
  return built ? (deps.store(built, options) as Promise<Doc[]>) : createReading(docs, deps, options);
}

/** stack.createDoc: createDocuments of one document, answering it (not a list of one: no `then` to take it out); a refusal rejects, never throws. */
export function createDocument<O>(doc: unknown, deps: CreateDeps<O>, options: O): Promise<Doc> {
  try {
    const built = createRequests([doc], deps.now(), deps.fresh, deps.systemFields());
    return built ? (deps.store(built, options, true) as Promise<Doc>) : createReading([doc], deps, options).then(firstOf);
  } catch (err) {
    return Promise.reject(err);
  }
}

async function createReading<O>(docs: readonly unknown[], deps: CreateDeps<O>, options: O): Promise<Doc[]> {
  const models = new Map<string, ClassModel>();
  for (const name of classNamesOf(docs)) models.set(name, deps.fresh(name) ?? (await deps.read(name)));
  return deps.store(createRequests(docs, deps.now(), (name) => models.get(name), deps.systemFields())!, options) as Promise<Doc[]>;
}
