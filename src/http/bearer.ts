// The credential of an `Authorization: Bearer <token>` header, the one way the API keys, the admin
// token and the metrics token are presented.

/** The token, or null when the header is missing or not of that form. */
export function bearerToken(header: string | undefined): string | null {
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}
