/**
 * The stack as hook contexts and plugins see it (`ctx.stack`, `kernel.stack`). Contracts name
 * nothing above them, so the port is declared here empty and the engine merges its stack into it
 * (engine/client-stack.ts: `interface StackPort extends ClientStack`): one implementation, typed
 * in full wherever a tap reads it, with no import pointing up from contracts or the kernel.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface StackPort {}
