// Every feature module's routes, in one list: server.ts mounts public ones under /api/v4 and
// operator ones under /admin/v1.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { accountAdminRoutes } from './accounts/admin.ts';
import { analyticsRoutes } from './analytics/routes.ts';
import { guestAdminRoutes } from './guests/admin.ts';
import { guestRoutes } from './guests/routes.ts';
import { insightAdminRoutes } from './insights/admin.ts';
import { insightRoutes } from './insights/routes.ts';
import { invitationAdminRoutes } from './invitations/admin.ts';
import { nodeAdminRoutes } from './nodes/admin.ts';
import { nodeRoutes } from './nodes/routes.ts';
import { reviewAdminRoutes } from './reviews/admin.ts';
import { reviewRoutes } from './reviews/routes.ts';
import { surveyAdminRoutes } from './surveys/admin.ts';
import { surveyRoutes } from './surveys/routes.ts';
import { webhookAdminRoutes } from './webhooks/admin.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { keyAdminRoutes } from './keys/admin.ts';
import { whoamiRoutes } from './keys/routes.ts';
import { userAdminRoutes } from './users/admin.ts';

type Routes = (app: FastifyInstance, ctx: AppContext) => void;

export const publicRoutes: Routes[] = [
  whoamiRoutes, reviewRoutes, analyticsRoutes, nodeRoutes, surveyRoutes, insightRoutes, guestRoutes, webhookRoutes,
];

export const adminRoutes: Routes[] = [
  accountAdminRoutes, nodeAdminRoutes, keyAdminRoutes, reviewAdminRoutes, surveyAdminRoutes, invitationAdminRoutes, insightAdminRoutes, guestAdminRoutes, webhookAdminRoutes, userAdminRoutes,
];
