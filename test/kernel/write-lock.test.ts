import { describe, expect, it } from 'vitest';
import { writeLockFor } from '../../storage/write-lock.js';
import { kernelStack, rawDb } from '../helpers/stack.js';

describe('the write lock held without a section (WriteLock.hold, the usual write on Node)', () => {
  it('is taken only when free, keeps sections waiting until it is given back, and is shared by every lock of the store', async () => {
    const stack = await kernelStack();
    const lock = writeLockFor(rawDb(stack));
    const other = writeLockFor(rawDb(stack)); // another lock object of the same store: the same queue
    expect(lock.hold!()).toBe(true);
    expect(lock.busy()).toBe(true);
    expect(other.busy()).toBe(true);
    expect(other.hold!()).toBe(false); // held: a second holder must queue as a section instead
    const ran: string[] = [];
    const waiting = other(async () => {
      ran.push('section');
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ran).toEqual([]);
    lock.release!();
    await waiting;
    expect(ran).toEqual(['section']);
    expect(lock.busy()).toBe(false);
    // given back with nothing waiting: free, and taken again at once
    expect(other.hold!()).toBe(true);
    other.release!();
    expect(lock.busy()).toBe(false);
  });
});
