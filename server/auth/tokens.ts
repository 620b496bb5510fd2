import { jwtVerify, SignJWT } from 'jose';
import type { JwtKeys, ServerConfig } from '../context.js';

export interface TokenClaims {
  /** the ~User id */
  sub: string;
  /** the ~UserSession id */
  sid: string;
  exp: number;
}

/** The one algorithm we sign and accept: no `none`, no HMAC with the public key as a secret. */
const ALGORITHMS = ['RS256'];

export async function signToken(keys: JwtKeys, config: ServerConfig, userId: string, sessionId: string, expiresAtSec: number): Promise<string> {
  return new SignJWT({ sid: sessionId })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuer(config.jwtIssuer)
    .setAudience(config.jwtAudience)
    .setIssuedAt()
    .setExpirationTime(expiresAtSec)
    .sign(keys.privateKey);
}

/** The claims of a valid token, or null for anything else (bad signature, algorithm, issuer, expiry...). */
export async function verifyToken(keys: JwtKeys, config: ServerConfig, token: string): Promise<TokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, keys.publicKey, {
      algorithms: ALGORITHMS,
      issuer: config.jwtIssuer,
      audience: config.jwtAudience,
      requiredClaims: ['sub', 'sid', 'exp', 'iat'],
    });
    if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || typeof payload.exp !== 'number') return null;
    return { sub: payload.sub, sid: payload.sid, exp: payload.exp };
  } catch {
    return null;
  }
}
