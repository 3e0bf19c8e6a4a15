// Query plans for bench output: the SQL a route really runs (captured through a logging Kysely on
// an in-process app) and its plan — EXPLAIN QUERY PLAN on SQLite, EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL.
import { Kysely, PostgresDialect, SqliteDialect, type CompiledQuery } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/connect.ts';
import type { DB } from '../../src/db/schema.ts';
import { withStatementCache } from '../../src/db/statement-cache.ts';
import { createContext } from '../../src/context.ts';
import { buildApp, fastifyOptions } from '../../src/app.ts';

export interface Query {
  sql: string;
  parameters: readonly unknown[];
}

/** The plan of one query, one line per plan node, indented like the database prints it. */
export async function explain(database: Database, query: Query): Promise<string[]> {
  if (database.dialect === 'sqlite') {
    const rows = database.sqlite.prepare(`explain query plan ${query.sql}`).all(...(query.parameters as unknown[])) as { id: number; parent: number; detail: string }[];
    const depth = new Map<number, number>([[0, 0]]);
    return rows.map((r) => {
      const d = (depth.get(r.parent) ?? 0) + 1;
      depth.set(r.id, d);
      return `${'  '.repeat(d - 1)}${r.detail}`;
    });
  }
  const result = await database.pool.query(`explain (analyze, buffers) ${query.sql}`, query.parameters as unknown[]);
  return result.rows.map((r: Record<string, string>) => r['QUERY PLAN']!);
}

/** A query for printing: the SQL on one line (long IN lists and repeated arms shortened) and its parameters. */
export function describeQuery(query: Query, max = 600): string {
  const text = query.sql.replace(/\s+/g, ' ').trim();
  const shown = text.length > max ? `${text.slice(0, max)} … (${text.length} chars)` : text;
  const params = query.parameters.map((p) => (Array.isArray(p) ? `[${p.length} values]` : JSON.stringify(p))).join(', ');
  return `${shown}\n    parameters (${query.parameters.length}): ${params.length > 300 ? `${params.slice(0, 300)} …` : params}`;
}

export interface RouteRequest {
  name: string;
  path: string;
  headers?: Record<string, string>;
}

/**
 * Runs each request twice on an in-process app over the same database (the first loads and caches
 * the key's principal) and returns the SQL the second one ran, per request name.
 */
export async function captureRouteQueries(database: Database, env: Record<string, string>, requests: RouteRequest[]): Promise<Map<string, CompiledQuery[]>> {
  let sink: CompiledQuery[] | null = null;
  // A second Kysely over the same connection(s), logging every query; never destroyed (it would close them).
  const db = new Kysely<DB>({
    dialect: database.dialect === 'sqlite' ? new SqliteDialect({ database: withStatementCache(database.sqlite) }) : new PostgresDialect({ pool: database.pool }),
    log: (event) => {
      if (event.level === 'query') sink?.push(event.query);
    },
  });
  const config = loadConfig({ ...env, DATABASE_URL: env.DATABASE_URL ?? 'sqlite::memory:' });
  const ctx = createContext(config, { ...database, db });
  const app = await buildApp(ctx, fastifyOptions('silent'));
  await app.ready();
  const captured = new Map<string, CompiledQuery[]>();
  try {
    for (const request of requests) {
      const inject = () => app.inject({ method: 'GET', url: request.path, headers: request.headers ?? {} });
      await inject();
      const queries: CompiledQuery[] = [];
      sink = queries;
      const response = await inject();
      sink = null;
      if (response.statusCode !== 200) throw new Error(`${request.name}: ${response.statusCode} ${response.body.slice(0, 200)}`);
      captured.set(request.name, queries);
    }
  } finally {
    await app.close();
    await ctx.rateLimits.close();
  }
  return captured;
}
