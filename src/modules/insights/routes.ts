// TODO(insights): routes of the insights module, not built yet.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';

export function insightRoutes(_app: FastifyInstance, _ctx: AppContext): void {}
