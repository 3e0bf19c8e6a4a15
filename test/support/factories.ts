// Data factories: build accounts, hierarchies, keys and reviews through the admin API, as an operator would.
import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';

export const ALL_SCOPES = [
  'reviews:read', 'surveys:read', 'analytics:read', 'insights:read', 'nodes:read', 'webhooks:manage', 'guests:write',
];

async function ok(response: Promise<{ statusCode: number; json(): any; body: string }>, status = 201): Promise<any> {
  const r = await response;
  assert.equal(r.statusCode, status, r.body);
  return r.json();
}

export interface Tree {
  accountId: string;
  root: string;
  regions: [string, string];
  /** properties[0..1] under regions[0], properties[2] under regions[1]. */
  properties: [string, string, string];
}

export async function createAccount(t: TestApp, body: Record<string, unknown> = {}): Promise<string> {
  return (await ok(t.admin('POST', '/accounts', { name: 'Hotel Group', ...body }))).id;
}

export async function createNode(t: TestApp, accountId: string, name: string, type: string, parentId: string | null): Promise<string> {
  return (await ok(t.admin('POST', `/accounts/${accountId}/nodes`, { name, type, parent_id: parentId }))).id;
}

/** An account with root → 2 regions → 3 properties. */
export async function createTree(t: TestApp, accountBody: Record<string, unknown> = {}): Promise<Tree> {
  const accountId = await createAccount(t, accountBody);
  const root = await createNode(t, accountId, 'Group', 'account', null);
  const north = await createNode(t, accountId, 'North', 'region', root);
  const south = await createNode(t, accountId, 'South', 'region', root);
  const p1 = await createNode(t, accountId, 'Harbour Hotel', 'property', north);
  const p2 = await createNode(t, accountId, 'Lake Lodge', 'property', north);
  const p3 = await createNode(t, accountId, 'Beach Resort', 'property', south);
  return { accountId, root, regions: [north, south], properties: [p1, p2, p3] };
}

export async function createKey(t: TestApp, accountId: string, nodeId: string, scopes: string[] = ALL_SCOPES): Promise<string> {
  return (await ok(t.admin('POST', `/accounts/${accountId}/api-keys`, { node_id: nodeId, scopes }))).key;
}

let reviewCounter = 0;

export async function createReview(t: TestApp, accountId: string, nodeId: string, body: Record<string, unknown> = {}): Promise<any> {
  reviewCounter += 1;
  return ok(t.admin('POST', `/accounts/${accountId}/reviews`, {
    node_id: nodeId, platform: 'google', external_id: `ext-${reviewCounter}-${Math.random().toString(36).slice(2)}`,
    reviewed_at: new Date(Date.UTC(2026, 0, 1) + reviewCounter * 60_000).toISOString(), rating: 4, ...body,
  }));
}
