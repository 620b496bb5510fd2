/**
 * Module hooks for ./register.mjs: a relative `.js` import that has no file resolves to the
 * `.ts` beside it (the sources import by their built names, as NodeNext asks), and a `.ts` file
 * loads with its types stripped by esbuild — no `keepNames`, no helpers, ES2022 as tsconfig.json.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const RELATIVE_JS = /^\.{1,2}\/.*\.js$/;

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (err) {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !RELATIVE_JS.test(specifier)) throw err;
    return nextResolve(`${specifier.slice(0, -'.js'.length)}.ts`, context);
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !/\.m?ts$/.test(url)) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const { code } = await transform(await readFile(file, 'utf8'), { loader: 'ts', format: 'esm', target: 'es2022', sourcefile: file });
  return { format: 'module', source: code, shortCircuit: true };
}
