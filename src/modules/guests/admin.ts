// TODO(guests): admin of the guests module, not built yet.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';

export function guestAdminRoutes(_app: FastifyInstance, _ctx: AppContext): void {}
