import type { Response } from 'express';
import type { AuthLocals } from '../context.js';

/** Who makes a request, as the authorization rules see it. */
export interface Caller {
  /** the `~User` document id ('' for no session) */
  userId: string;
  username: string;
  admin: boolean;
  /** the tenants the user is a member of (server/tenants); an admin reaches every tenant */
  tenants: readonly string[];
}

/** The caller of an authenticated request (set on res.locals by the session check). */
export function callerOf(res: Response): Caller {
  const user = (res.locals as Partial<AuthLocals>).user;
  if (!user) return { userId: '', username: '', admin: false, tenants: [] };
  const admin = user.role === 'admin';
  return { userId: user.id, username: user.username, admin, tenants: user.tenants ?? [] };
}
