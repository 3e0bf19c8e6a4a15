// Every feature's pages, in one list: src/web/plugin.ts mounts them at the root of the server, inside
// the pages' own context (form bodies, security headers, templates, HTML error pages).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { dashboardPages } from './dashboard/pages.ts';
import { dashboardRoutes } from './dashboard/plugin.ts';
import { surveyPages } from './survey/routes.ts';

export type PageRoutes = (web: FastifyInstance, ctx: AppContext) => void | Promise<void>;

export const pageRoutes: PageRoutes[] = [dashboardRoutes(dashboardPages), surveyPages];
