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

/**
 * Remembers tokens whose signature and claims were verified, until they expire, so a client
 * sending the same token request after request pays the RSA verification once. The session is
 * still checked on every request (revocation stays immediate); only the signature check is
 * cached. Bounded; one per auth service (per node), cleared when the node's keys change.
 */
export class VerifiedTokens {
  private readonly entries = new Map<string, TokenClaims>();
  constructor(private readonly max = 10_000) {}

  async verify(keys: JwtKeys, config: ServerConfig, token: string): Promise<TokenClaims | null> {
    const known = this.entries.get(token);
    if (known) {
      if (known.exp * 1000 > Date.now()) return known;
      this.entries.delete(token);
      return null;
    }
    const claims = await verifyToken(keys, config, token);
    if (claims) {
      if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(token, claims);
    }
    return claims;
  }
}
