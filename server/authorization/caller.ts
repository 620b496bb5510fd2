import type { Response } from 'express';
import type { AuthLocals, Caller } from '../context.js';

// Caller lives in server/context.ts (the bottom layer) so context never imports authorization.
export type { Caller };

/** The caller of an authenticated request (set on res.locals by the session check). */
export function callerOf(res: Response): Caller {
  const user = (res.locals as Partial<AuthLocals>).user;
  if (!user) return { userId: '', username: '', admin: false, tenants: [] };
  const admin = user.role === 'admin';
  return { userId: user.id, username: user.username, admin, tenants: user.tenants ?? [] };
}
