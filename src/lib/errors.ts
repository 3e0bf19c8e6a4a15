// Domain errors: what went wrong, in the domain's words (not found, invalid, conflict, …). Services,
// the importer and the CLI throw them; src/http/errors.ts maps each kind to a status at the edge.

export type ErrorKind = 'invalid' | 'unauthenticated' | 'not-found' | 'conflict' | 'unprocessable';

/** Codes that say more than the kind does (src/http/error-codes.ts lists them with every other code). */
export type DomainCode = 'guest_erased' | 'endpoint_limit_reached' | 'delivery_pending' | 'rotation_in_progress';

export class DomainError extends Error {
  constructor(readonly kind: ErrorKind, message: string, readonly code?: DomainCode) {
    super(message);
    this.name = 'DomainError';
  }
}

/** The input breaks a rule of the domain (a field names something that does not fit). */
export const invalid = (message: string): DomainError => new DomainError('invalid', message);

/**
 * Several fields break their rules at once, each named with its own message ("email must be …"): a
 * dashboard form shows each beside its field; anywhere else it reads as the messages joined by "; ".
 */
export class FieldsInvalid extends DomainError {
  constructor(readonly faults: ReadonlyArray<{ field: string; message: string }>) {
    super('invalid', faults.map((f) => f.message).join('; '));
  }
}

/** What the caller named does not exist, or not for this caller. */
export const notFound = (what = 'resource', message = `${what} not found`): DomainError => new DomainError('not-found', message);

/** The request is well-formed but clashes with the current state (a limit, an erased guest, a status). */
export const conflict = (message: string, code?: DomainCode): DomainError => new DomainError('conflict', message, code);

/** The request is well-formed but cannot be carried out as addressed (e.g. a push to a non-property node). */
export const unprocessable = (message: string): DomainError => new DomainError('unprocessable', message);

/** The caller's credentials name nothing (any more). */
export const unauthenticated = (message: string): DomainError => new DomainError('unauthenticated', message);
