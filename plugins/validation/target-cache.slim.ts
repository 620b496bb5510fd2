import type { ClientStack } from '../../index.js';
import type { StoredTarget, TargetCache as FullCache } from './target-cache.js';

/**
 * The slim bundle's stand-in for ./target-cache.ts (scripts/build-browser.mjs swaps it in): no
 * target is kept, so every foreign-key check reads its target, as before the cache existed. The
 * cache only saves reads for serial writers; the slim preset trades that for size.
 */
export class TargetCache implements Pick<FullCache, 'fresh' | 'mark' | 'keep' | 'invalidate'> {
  constructor(_stack: ClientStack) {}
  fresh(_id: string): StoredTarget | undefined {
    return undefined;
  }
  mark(): { generation: number; at: number } {
    return { generation: 0, at: 0 };
  }
  keep(_read: { generation: number; at: number }, _id: string, _doc: StoredTarget | null): void {}
  invalidate(_id: string): void {}
}
