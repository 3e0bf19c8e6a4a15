// TODO(analytics): routes of the analytics module, not built yet.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';

export function analyticsRoutes(_app: FastifyInstance, _ctx: AppContext): void {}
