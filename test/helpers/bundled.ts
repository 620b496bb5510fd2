import { rmSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * A TypeScript entry (server/main.ts, a crash test's child) as one ES module for child processes:
 * node starts it in ~0.8 s where `node --import tsx` takes ~2.2 s — the crash and restart tests
 * spawn dozens. Bundled afresh once per test process (~0.3 s), so always the sources as they are;
 * packages stay external (leveldown is native), which is why the file sits inside the repository
 * (test/.bundles/, ignored by git) where node_modules resolves.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT = join(ROOT, 'test', '.bundles');
const built = new Map<string, Promise<string>>();

/** The bundled entry's path (`entry` relative to the repository root or absolute): run it with `node <path> …`. */
export function bundled(entry: string): Promise<string> {
  let file = built.get(entry);
  if (!file) {
    file = bundle(entry);
    built.set(entry, file);
  }
  return file;
}

async function bundle(entry: string): Promise<string> {
  await mkdir(OUT, { recursive: true });
  await removeOrphans();
  const outfile = join(OUT, `${basename(entry, '.ts')}-${process.pid}-${built.size}.mjs`);
  process.once('exit', () => rmSync(outfile, { force: true }));
  await build({
    entryPoints: [entry.startsWith('/') ? entry : join(ROOT, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return outfile;
}

/** Bundles of test processes that are gone (a worker killed before its exit handler ran). */
async function removeOrphans(): Promise<void> {
  for (const file of await readdir(OUT)) {
    const pid = Number(/-(\d+)-\d+\.mjs$/.exec(file)?.[1]);
    if (pid && pid !== process.pid && !alive(pid)) await rm(join(OUT, file), { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
