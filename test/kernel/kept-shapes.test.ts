/**
 * storage/kept-shapes.ts: a full garbage collection between two serial writes does not throw away
 * the optimized code of the engine's write path. A child process (V8's --trace-deopt) lists the
 * functions whose code the collection marks for deoptimization because an object it checked
 * died ("weak objects"); the write path's own must not be among them. The same child with the
 * kept shapes let go shows them (the check can fail: it sees what it guards against).
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundled } from '../helpers/bundled.js';
import { tempDir } from '../helpers/stack.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const child = fileURLToPath(new URL('./kept-shapes-child.ts', import.meta.url));

/** Functions of a create's path whose code checks a shape made per write (a share, the batch, a draft). */
const WRITE_PATH = ['Batch', 'CountsShare', 'KeysShare', 'beginCounts', 'beginKeys', 'checkDrafts', 'storedOnce'];

/**
 * The write-path functions V8 had optimized before the child's collection, those the collection
 * marked for deoptimization ("weak objects"), and what the child stored.
 */
async function collectedAway(forget: boolean): Promise<{ optimized: string[]; marked: string[]; stored: number }> {
  const script = await bundled(child);
  // stdout to a file, not a pipe: V8 prints its trace straight to the descriptor, and the child's
  // markers must land in order among those lines (writes to a pipe are queued, to a file not)
  const file = join(await tempDir(), 'trace.txt');
  const fd = openSync(file, 'w');
  try {
    await new Promise<void>((resolve, reject) => {
      // optimized on the main thread (no concurrent recompilation): under a loaded machine the
      // write path is still optimized after the child's warm-up writes, so both runs check it
      const flags = ['--expose-gc', '--trace-opt', '--trace-deopt', '--no-concurrent-recompilation'];
      const proc = spawn(process.execPath, [...flags, script, ...(forget ? ['forget'] : [])], { cwd: root, stdio: ['ignore', fd, 'pipe'] });
      let err = '';
      proc.stderr?.on('data', (d) => (err += d));
      proc.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the child failed (${code}): ${err}`))));
    });
  } finally {
    closeSync(fd);
  }
  const out = readFileSync(file, 'utf8');
  const before = out.slice(0, out.indexOf('@@gc\n'));
  const during = out.slice(out.indexOf('@@gc\n'), out.indexOf('@@gc done'));
  const optimized = WRITE_PATH.filter((name) => new RegExp(`completed (compiling|optimizing) 0x[0-9a-f]+ <JSFunction ${name} \\(sfi = 0x[0-9a-f]+\\)> \\(target TURBOFAN\\)`).test(before));
  const marked = [...during.matchAll(/<SharedFunctionInfo ([^>]+)>\) \(opt id \d+\) for deoptimization, reason: weak objects/g)].map((m) => m[1]);
  return { optimized, marked: marked.filter((name) => WRITE_PATH.includes(name)), stored: Number(/@@count (\d+)/.exec(out)?.[1]) };
}

describe('the write path keeps its optimized code across a full garbage collection', () => {
  it('no function of a create is thrown away when the collection runs between two writes; without the kept shapes, they are', async () => {
    const kept = await collectedAway(false);
    expect(kept.stored).toBe(4_100); // every create stored
    expect(kept.optimized.length).toBeGreaterThan(3); // the write path was optimized before the collection
    expect(kept.marked).toEqual([]);

    const forgotten = await collectedAway(true);
    expect(forgotten.stored).toBe(4_100);
    expect(forgotten.optimized.length).toBeGreaterThan(3);
    expect(forgotten.marked.length).toBeGreaterThan(0);
  }, 60_000);
});
