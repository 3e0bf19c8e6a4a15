// Dashboard sessions, server-side in the database so every instance shares them and sign-out, user
// deletion and expiry end them at once: the cookie holds 32 random bytes (256 bits, base64url),
// the table only their SHA-256. A session ends after SESSION_IDLE_S without a request (12 hours by
// default) and SESSION_MAX_S after sign-in (7 days), whichever comes first. A server keeps the
// sessions it read in memory only until the database signals a change that could end or alter one
// (session-changes.ts), and last_seen_at is written at most once a minute.
import type { Kysely } from 'kysely';
import type { Principal } from '../../access/principal.ts';
import { FEATURE_OF_SCOPE, SCOPES, type Scope } from '../../access/scopes.ts';
import type { DB } from '../../db/schema.ts';
import { unlessReadOnly } from '../../db/unavailable.ts';
import { isSecretTokenShaped, newSecretToken, secretTokenHash } from '../../lib/secret-token.ts';
import type { TtlCache } from '../../lib/ttl-cache.ts';
import type { SessionCache } from './session-changes.ts';
import { principalFor } from '../keys/service.ts';
import * as repo from './repository.ts';
import type { Role } from './schemas.ts';

export interface SessionSettings {
  sessionIdleS: number;
  sessionMaxS: number;
}

/** The signed-in user of a request, and what it reaches: a Principal like a key bound to its node. */
export interface SignedIn {
  userId: string;
  email: string;
  role: Role;
  /** The user's setting, or null: follow the browser. */
  language: string | null;
  principal: Principal;
  /** The session's id hash: binds CSRF tokens to this session. */
  sessionHash: string;
}

const TOUCH_EVERY_MS = 60_000;

/** What the role may do through the API's own checks (services that take a Principal look at scopes). */
const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: SCOPES,
  manager: SCOPES.filter((s) => s !== 'webhooks:manage'),
  viewer: SCOPES.filter((s) => s.endsWith(':read')),
};

/** Opens a session for the user; the returned id goes into the cookie and nowhere else. */
export async function openSession(db: Kysely<DB>, settings: SessionSettings, userId: string): Promise<{ id: string; maxAgeS: number }> {
  const now = Date.now();
  const id = newSecretToken();
  await repo.deleteExpiredSessions(db, new Date(now).toISOString(), new Date(now - settings.sessionIdleS * 1000).toISOString());
  await repo.insertSession(db, {
    id_hash: secretTokenHash(id), user_id: userId, created_at: new Date(now).toISOString(), last_seen_at: new Date(now).toISOString(),
    expires_at: new Date(now + settings.sessionMaxS * 1000).toISOString(),
  });
  return { id, maxAgeS: settings.sessionMaxS };
}

/** What sessionOf may keep between requests. */
export interface SessionMemory {
  /** Sessions read, until the database signals a change. */
  sessions?: SessionCache;
  /** Users' Principals (their subtrees), briefly, as for keys. */
  reach?: TtlCache<Principal>;
}

/**
 * The session's user, or null when the id names no live session (unknown, signed out, expired, user
 * deleted). A kept session is used only while the database has signalled no change since it was
 * read, so an ended session is refused at once; `reach` may keep the user's Principal (its subtree)
 * briefly, keyed by user, role, node and plan, so a changed role or plan applies at once and a new
 * node within the cache's TTL, as for keys.
 */
export async function sessionOf(db: Kysely<DB>, settings: SessionSettings, id: string, memory: SessionMemory = {}): Promise<SignedIn | null> {
  if (!isSecretTokenShaped(id)) return null;
  const idHash = secretTokenHash(id);
  const { sessions, reach } = memory;
  let row = sessions?.get(idHash);
  if (row === undefined) {
    const ticket = sessions?.ticket();
    row = await repo.findSession(db, idHash);
    if (!row) return null;
    if (ticket) sessions!.set(idHash, row, ticket);
  }
  const now = Date.now();
  const lastSeen = Date.parse(row.last_seen_at);
  if (Date.parse(row.expires_at) <= now || lastSeen + settings.sessionIdleS * 1000 <= now) {
    sessions?.forget(idHash);
    await repo.deleteSession(db, idHash);
    return null;
  }
  if (lastSeen + TOUCH_EVERY_MS <= now) {
    // The kept row's last_seen_at is now old: the next request reads the session again.
    sessions?.forget(idHash);
    await unlessReadOnly(repo.touchSession(db, idHash, new Date(now).toISOString()));
  }
  const role = row.role as Role;
  const reachKey = `${row.user_id}|${role}|${row.node_id}|${row.plan_features}`;
  let principal = reach?.get(reachKey);
  if (principal === undefined) {
    const resolved = await principalFor(db, { ...row, id: `user:${row.user_id}`, scopes: [...ROLE_SCOPES[role]] });
    // A scope of a feature the plan leaves out grants nothing: not on the pages, nor to keys made there.
    principal = { ...resolved, scopes: ROLE_SCOPES[role].filter((s) => resolved.features.has(FEATURE_OF_SCOPE[s])) };
    // Webhook endpoints are account-wide (every event of the account reaches them): an owner bound
    // to a node below the root, who sees that subtree only, does not manage them nor grant the scope.
    if (!principal.isAccountRoot) {
      principal = {
        ...principal, scopes: principal.scopes.filter((s) => s !== 'webhooks:manage'),
        ancestors: row.node_path.split('/').filter(Boolean).slice(0, -1),
      };
    }
    reach?.set(reachKey, principal);
  }
  return { userId: row.user_id, email: row.email, role, language: row.language, principal, sessionHash: idHash };
}

export async function endSession(db: Kysely<DB>, id: string): Promise<void> {
  await repo.deleteSession(db, secretTokenHash(id));
}
