// Which property a push lands on: the key's own property, or a property node named by property_id
// inside the key's subtree. Every failure is a 422 saying which rule was broken.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Principal } from '../../access/principal.ts';
import { AppError } from '../../http/errors.ts';
import { PROPERTY } from '../nodes/service.ts';
import { findNodeType } from './repository.ts';

// A node's type never changes once created, so a push to a known property costs no query; the TTL
// only bounds memory and staleness should an operator ever retype a node.
const TTL_MS = 60_000;
const nodeTypes = new Map<string, { type: string; expires: number }>();

async function nodeType(db: Kysely<DB>, nodeId: string): Promise<string | null> {
  const cached = nodeTypes.get(nodeId);
  if (cached && cached.expires > Date.now()) return cached.type;
  const row = await findNodeType(db, nodeId);
  if (!row) return null;
  if (nodeTypes.size > 10_000) nodeTypes.clear();
  nodeTypes.set(nodeId, { type: row.type, expires: Date.now() + TTL_MS });
  return row.type;
}

export async function resolveProperty(db: Kysely<DB>, principal: Principal, requested: string | null): Promise<string> {
  if (requested === null) {
    if (principal.nodeType === PROPERTY) return principal.nodeId;
    throw new AppError(422, 'property_id is required: the key is bound to a group node, so name the property the guest belongs to');
  }
  if (!principal.inSubtree(requested)) {
    throw new AppError(422, `property_id ${requested} is not within the key's scope: it must be a property at or below the key's node`);
  }
  const type = requested === principal.nodeId ? principal.nodeType : await nodeType(db, requested);
  if (type !== PROPERTY) {
    throw new AppError(422, `property_id ${requested} is a ${type ?? 'unknown'} node, not a property: guests belong to property (leaf) nodes`);
  }
  return requested;
}

/** For the operator plane: the property must be a property node of the account, else 400. */
export async function requireAccountProperty(db: Kysely<DB>, accountId: string, propertyId: string): Promise<void> {
  const row = await findNodeType(db, propertyId);
  if (!row || row.account_id !== accountId) throw new AppError(400, 'property_id must be a node of this account');
  if (row.type !== PROPERTY) throw new AppError(400, `property_id is a ${row.type} node, not a property`);
}
