// What the guest services need from the process: the database, its dialect and the fingerprint key.
// The HTTP routes and the CLI build it the same way.
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { Database, Dialect } from '../../db/connect.ts';
import type { DB } from '../../db/schema.ts';
import { type Fingerprinter, fingerprintFor } from './fingerprint.ts';

export interface GuestDeps {
  db: Kysely<DB>;
  dialect: Dialect;
  database: Database;
  fingerprint: Fingerprinter;
}

export const guestDeps = (config: Pick<Config, 'secretKey'>, database: Database): GuestDeps => ({
  db: database.db, dialect: database.dialect, database, fingerprint: fingerprintFor(config.secretKey),
});
