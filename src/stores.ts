// The per-dialect stores of an open database, chosen here once: each concern whose statements
// differ per database has one interface and one implementation per dialect, and the context hands
// the chosen ones down. A query that differs by a clause only (FOR UPDATE, a collation) asks
// isPostgres (src/db/adapter.ts) where it is built.
import type { Database } from './db/connect.ts';
import type { DeliveryStore } from './delivery/store.ts';
import { postgresDeliveryStore } from './delivery/store-postgres.ts';
import { sqliteDeliveryStore } from './delivery/store-sqlite.ts';
import type { GuestStore } from './modules/guests/repository.ts';
import { postgresGuestStore } from './modules/guests/store-postgres.ts';
import { sqliteGuestStore } from './modules/guests/store-sqlite.ts';
import type { ReviewBulkStore } from './modules/reviews/repository.ts';
import { postgresReviewBulkStore } from './modules/reviews/store-postgres.ts';
import { sqliteReviewBulkStore } from './modules/reviews/store-sqlite.ts';

export interface Stores {
  /** Webhook deliveries: claims under a lease and attempt results (the worker). */
  deliveries: DeliveryStore;
  /** Guest push and erasure. */
  guests: GuestStore;
  /** Bulk review writes (imports, demo). */
  reviews: ReviewBulkStore;
}

export function storesFor(database: Database): Stores {
  switch (database.dialect) {
    case 'sqlite':
      return { deliveries: sqliteDeliveryStore(database), guests: sqliteGuestStore(database), reviews: sqliteReviewBulkStore(database) };
    case 'postgres':
      return { deliveries: postgresDeliveryStore(database), guests: postgresGuestStore(database), reviews: postgresReviewBulkStore(database) };
  }
}
