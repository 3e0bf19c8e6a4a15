// What every Kysely instance opened by connect() carries about its database, so that code holding
// only `db` or a transaction of it (services, the outbox) reaches it: the commit signal and the
// dialect's SQL helpers. Carried as a Kysely plugin that changes no query and no result.
import { type Kysely, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, PostgresAdapter, type QueryResult, type RootOperationNode, type UnknownRow } from 'kysely';
import type { CommitSignal } from './commit-signal.ts';
import type { DialectSql } from './dialect.ts';
import type { DB } from './schema.ts';

export class AdapterCarrier implements KyselyPlugin {
  constructor(readonly commits: CommitSignal, readonly sql: DialectSql) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/** The adapter of the database `db` (or a transaction or connection of it) belongs to. */
export function adapterOf(db: Kysely<DB>): AdapterCarrier {
  const carrier = db.getExecutor().plugins.find((p): p is AdapterCarrier => p instanceof AdapterCarrier);
  if (!carrier) throw new Error('this Kysely instance was not opened by connect() (src/db/connect.ts)');
  return carrier;
}

/** True when `db` (or a transaction or connection of it) runs on PostgreSQL, false on SQLite. */
export function isPostgres(db: Kysely<DB>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
