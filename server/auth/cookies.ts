import { parseCookie } from 'cookie';
import type { CookieOptions, Request, Response } from 'express';
import type { ServerConfig } from '../context.js';

export const TOKEN_COOKIE = 'jwtToken';

/**
 * httpOnly so page scripts never see the token; SameSite=Strict + Secure everywhere but
 * NODE_ENV=development, where the app is served from another origin over plain http (Lax, no
 * Secure — a Secure cookie would not be stored from http://localhost by every browser).
 * COOKIE_SAMESITE overrides SameSite: `none` (always Secure) lets a browser app on another site
 * (CORS_ORIGINS) sync with the cookie.
 */
function cookieOptions(config: ServerConfig): CookieOptions {
  const base: CookieOptions = config.development ? { httpOnly: true, path: '/', sameSite: 'lax', secure: false } : { httpOnly: true, path: '/', sameSite: 'strict', secure: true };
  if (!config.cookieSameSite) return base;
  return { ...base, sameSite: config.cookieSameSite, secure: config.cookieSameSite === 'none' ? true : base.secure };
}

export function setTokenCookie(res: Response, config: ServerConfig, token: string, maxAgeMs: number): void {
  res.cookie(TOKEN_COOKIE, token, { ...cookieOptions(config), maxAge: maxAgeMs });
}

export function clearTokenCookie(res: Response, config: ServerConfig): void {
  res.clearCookie(TOKEN_COOKIE, cookieOptions(config));
}

/** The bearer token of a request: `Authorization: Bearer` first (API clients), else the cookie. */
export function tokenOf(req: Request): string | null {
  const header = req.headers.authorization;
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match) return match[1];
  }
  const raw = req.headers.cookie;
  if (typeof raw !== 'string' || raw === '') return null;
  const value = parseCookie(raw)[TOKEN_COOKIE];
  return value ? value : null;
}
