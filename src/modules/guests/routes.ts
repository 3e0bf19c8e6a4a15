// TODO(guests): routes of the guests module, not built yet.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';

export function guestRoutes(_app: FastifyInstance, _ctx: AppContext): void {}
