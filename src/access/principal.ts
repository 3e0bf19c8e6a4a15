// Who is calling: the account, the node subtree and the scopes of a key, and the plan's features.
import type { SubtreeScope } from '../db/subtree-page.ts';

export interface Principal {
  keyId: string;
  accountId: string;
  nodeId: string;
  nodeType: string;
  scopes: string[];
  features: Set<string>;
  /** True when the key is bound to the account's root node: its subtree is the whole account. */
  isAccountRoot: boolean;
  /** Ids of the key's node and every node below it. */
  subtree: string[];
  /** The account's node count, when the subtree page shape needs it (subtrees of 2 to 64 nodes). */
  accountNodes?: number;
  inSubtree(nodeId: string): boolean;
  /**
   * A dashboard user's only (never a key's): the nodes above theirs, root first. Their surveys are
   * the user's to read too (a group's survey is answered at its hotels), though only for the
   * responses of the user's subtree; the public API keeps its rule, the owner node in the subtree.
   */
  ancestors?: readonly string[];
}

const scopes = new WeakMap<Principal, SubtreeScope>();

/**
 * The principal's subtree as the paged list queries take it: one object per principal (a cached key's
 * principal serves many requests), so subtreePageQuery can keep its first pages' compiled queries.
 */
export function subtreeScope(p: Principal): SubtreeScope {
  let scope = scopes.get(p);
  if (scope === undefined) {
    scope = { accountId: p.accountId, nodes: p.subtree, wholeAccount: p.isAccountRoot, accountNodes: p.accountNodes };
    scopes.set(p, scope);
  }
  return scope;
}
