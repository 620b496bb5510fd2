import type { ClassModel } from '../contracts/model.js';
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
