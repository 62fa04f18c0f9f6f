import crypto from 'node:crypto';

/** 32 random bytes: the access token printed in the URL, like Jupyter's. */
export function generateToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/**
 * Constant-time comparison. Both sides are hashed first so the comparison takes the same
 * time whatever the candidate's length (timingSafeEqual itself needs equal lengths).
 */
export function tokensEqual(candidate: string, token: string): boolean {
  const a = crypto.createHash('sha256').update(candidate, 'utf8').digest();
  const b = crypto.createHash('sha256').update(token, 'utf8').digest();
  return crypto.timingSafeEqual(a, b);
}

/** Cookies are not isolated by port, so two hosts on one machine get distinct names. */
export function tokenCookieName(port: number): string {
  return `cwb_token_${port}`;
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name && !cookies.has(name)) cookies.set(name, part.slice(eq + 1).trim());
  }
  return cookies;
}
