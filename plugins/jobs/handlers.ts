import { asValue } from 'awilix';
import type { HandlerOptions, JobHandler } from './types.js';
import type { Kernel } from '../../index.js';
import { HandlerRegistry, handlerRegistryOf } from '../../kit/index.js';

/** Container key of the stack's job handler registry (a `JobHandlerRegistry`). */
export const JOB_HANDLERS = 'jobHandlers';

const JOB_HANDLER_KIND = 'job handler';

/**
 * The handlers a stack can run, by name: the kernel's one handler registry type (name rule,
 * DS_HANDLER_INVALID / DS_HANDLER_DUPLICATE / DS_HANDLER_UNKNOWN), of kind `job handler`, each
 * kept with its options (`checkParams`, `description`). A stored job only names its handler, so
 * nothing stored is ever executed as code. One registry per stack (in its container).
 */
export class JobHandlerRegistry extends HandlerRegistry<JobHandler, HandlerOptions> {
  constructor() {
    super(JOB_HANDLER_KIND);
  }
}

export function createHandlerRegistry(kernel: Pick<Kernel, 'container'>): JobHandlerRegistry {
  const registry = new JobHandlerRegistry();
  kernel.container.register(JOB_HANDLERS, asValue(registry));
  return registry;
}

/**
 * Registers a job handler on the stack being set up. Call it from the setup of a plugin that
 * `requires: ['jobs']` (so the jobs plugin, and its registry, is set up first):
 *
 * ```ts
 * definePlugin({ name: 'greeter', requires: ['jobs'], setup(kernel) {
 *   registerJobHandler(kernel, 'greet', async ({ params }) => ({ text: `hello ${params.who}` }));
 * } });
 * ```
 *
 * Without the jobs plugin DS_PLUGIN_MISSING_REQUIREMENT.
 */
export function registerJobHandler(kernel: Pick<Kernel, 'container'>, name: string, handler: JobHandler, options: HandlerOptions = {}): void {
  handlerRegistryOf<JobHandlerRegistry>(kernel, JOB_HANDLERS, JOB_HANDLER_KIND, 'jobs').register(name, handler, options);
}
