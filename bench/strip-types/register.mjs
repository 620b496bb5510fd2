/**
 * `node --import ./bench/strip-types/register.mjs bench/run.ts`: runs the benches on the engine's
 * TypeScript with its types stripped and nothing added — the code tsc ships in dist/.
 *
 * Why not tsx (which the tests and scripts use): tsx compiles with esbuild's `keepNames`, which
 * wraps every named function and closure the engine makes in a `__name(fn, "…")` call (an
 * Object.defineProperty per closure, per write). The shipped build has none, and raw PouchDB — the
 * baseline — is plain JavaScript that tsx leaves alone, so under tsx only the engine's side paid
 * for it: measured on the serial-insert steady state (bench/serial-layers, 3 runs each), the
 * browser preset ÷ put was 1.41 under tsx and 1.34 on tsc's output (memory), 1.30 and 1.27 (leveldb).
 * The hooks are in ./hooks.mjs (Node runs module hooks on a thread of their own).
 */
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
