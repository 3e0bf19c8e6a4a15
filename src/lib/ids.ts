// Ids: UUIDv7 (time-ordered, so inserts stay at the right edge of every index) and a UUID check.
import { v7 } from 'uuid';

export const newId = (): string => v7();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);

/**
 * Looks a row up by a caller-given id: an id that is not a UUID names nothing, so it answers undefined
 * without a query (and without a database error on PostgreSQL's uuid-shaped columns).
 */
export const lookup = async <T>(id: string, find: (uuid: string) => Promise<T | undefined>): Promise<T | undefined> =>
  isUuid(id) ? find(id) : undefined;
