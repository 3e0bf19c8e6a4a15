// Recognises database errors that callers handle rather than report as internal errors.

/** A unique index refused a row: another transaction inserted the same identity first. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** The write lost to another one and may simply run again: SQLite busy or locked, a PostgreSQL deadlock or serialization failure. */
export function isContention(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (/^SQLITE_(BUSY|LOCKED)/.test(code) || code === '40P01' || code === '40001');
}

/** A foreign key refused the change: a row still refers to the one being removed. */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
