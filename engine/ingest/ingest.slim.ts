import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { HeldEntry, IngestResult, Ingestor as FullIngestor } from './ingest.js';

/**
 * The slim browser bundle's stand-in for ./ingest.ts (scripts/build-browser.mjs swaps it in for
 * docstack-slim.js only): the slim preset replicates nothing, so the engine's ingest — a peer's
 * documents, held documents — is left out of that file (≈ 6 kB gzipped). Nothing is ever held
 * there; `stack.ingest` is refused with DS_NOT_IN_BUILD, naming the bundle that has it.
 */
export class Ingestor implements Pick<FullIngestor, 'ingest' | 'heldDocuments' | 'registerConflictHandler'> {
  constructor(_deps: unknown) {}

  async ingest(): Promise<IngestResult[]> {
    throw KERNEL_ERRORS.notInBuild('stack.ingest (replication) is not in the slim bundle: open the stack from docstack/browser to replicate.');
  }

  registerConflictHandler(): void {
    throw KERNEL_ERRORS.notInBuild('Conflict handlers resolve what replication brings: the slim bundle replicates nothing; open the stack from docstack/browser.');
  }

  async heldDocuments(): Promise<HeldEntry[]> {
    return [];
  }
}
