// TODO(webhooks): admin of the webhooks module, not built yet.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';

export function webhookAdminRoutes(_app: FastifyInstance, _ctx: AppContext): void {}
