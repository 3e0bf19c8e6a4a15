// TODO(surveys): routes of the surveys module, not built yet.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';

export function surveyRoutes(_app: FastifyInstance, _ctx: AppContext): void {}
