// Named prepared statements for Kysely on PostgreSQL. Kysely sends every query unnamed, so the
// server parses and plans it at each request; the read path runs the same few texts over and over.
// This pool wrapper gives each distinct parameterised text a name on first sight (up to a bound),
// so every connection parses it once and then only binds and executes: one round trip, no parse.
// Texts beyond the bound (varied IN-list lengths, one-off operator queries) stay unnamed.
import type pg from 'pg';

/** Distinct texts that get a name; each connection keeps at most this many prepared statements. */
const NAMED_TEXTS_LIMIT = 2000;

type Values = readonly unknown[] | undefined;

interface QueryClient {
  query(text: unknown, values?: Values): Promise<unknown>;
  release(error?: Error | boolean): void;
}

export function withNamedStatements(pool: pg.Pool): { connect(): Promise<QueryClient>; end(): Promise<void> } {
  const names = new Map<string, string>();
  const wrappers = new WeakMap<pg.PoolClient, QueryClient>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < NAMED_TEXTS_LIMIT && text.includes('$1')) {
      name = `repute_k${names.size}`;
      names.set(text, name);
    }
    return name;
  };
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = {
          query: (text, values) => {
            if (typeof text !== 'string') return client.query(text as pg.QueryConfig);
            const name = nameOf(text);
            return name === undefined ? client.query(text, values as unknown[]) : client.query({ name, text, values: values as unknown[] });
          },
          release: (error) => client.release(error),
        };
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}
