import type { listDenials as fullList, resolveDenial as fullResolve } from './denials.js';

/**
 * The slim bundle's stand-in for ./denials.ts: denials are kept by the plugins that sync, which
 * the slim preset leaves out, so there is never one to list or forget (the full module answers
 * the same with no such plugin loaded: [] and false).
 */
export const listDenials: typeof fullList = async () => [];

export const resolveDenial: typeof fullResolve = async () => false;
