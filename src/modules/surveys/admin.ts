// TODO(surveys): admin of the surveys module, not built yet.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';

export function surveyAdminRoutes(_app: FastifyInstance, _ctx: AppContext): void {}
