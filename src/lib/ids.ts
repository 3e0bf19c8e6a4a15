// Ids: UUIDv7 (time-ordered, so inserts stay at the right edge of every index) and a UUID check.
import { v7 } from 'uuid';

export const newId = (): string => v7();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
