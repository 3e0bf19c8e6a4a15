// TODO(insights): admin of the insights module, not built yet.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';

export function insightAdminRoutes(_app: FastifyInstance, _ctx: AppContext): void {}
