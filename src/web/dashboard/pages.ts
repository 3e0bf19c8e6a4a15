// Every dashboard page, in one list: the dashboard plugin mounts them, the frame's navigation is
// collected from their `nav` entries in this order. A new page adds itself here.
import { accountPage } from './account.ts';
import { loginPage } from './login.ts';
import { overviewPage } from './overview.ts';
import { passwordResetPage } from './password-reset.ts';
import { reviewsPage } from './reviews.ts';
import { insightsPage } from './insights.ts';
import { analyticsPage } from './analytics.ts';
import { surveysPage } from './surveys.ts';
import type { DashboardPage } from './plugin.ts';
import { settingsApiPage } from './settings-api.ts';
import { settingsUsersPage } from './settings-users.ts';
import { settingsWebhooksPage } from './settings-webhooks.ts';

export const dashboardPages: DashboardPage[] = [
  loginPage,
  passwordResetPage,
  overviewPage,
  reviewsPage,
  analyticsPage,
  insightsPage,
  surveysPage,
  accountPage,
  settingsApiPage,
  settingsWebhooksPage,
  settingsUsersPage,
];
