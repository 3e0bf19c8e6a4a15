// /analytics: score over time per platform (a uPlot chart over an accessible table), the rating
// distribution, response rate and time, and the properties compared, within the user's reach, or
// for one of its properties (?property=<id>).
import type { AppContext } from '../../context.ts';
import { AppError } from '../../http/errors.ts';
import { analyticsView } from '../../modules/analytics/dashboard.ts';
import { listVisibleProperties } from '../../modules/nodes/service.ts';
import { analyticsCatalog } from './analytics-catalog.ts';
import { platformName } from './platform-names.ts';
import type { DashboardPage } from './plugin.ts';
import { pageTranslator, renderPage } from './render.ts';
import { languageOf, requireUser, scopeOf } from './session.ts';

/** A month of the table ("2026-11") as the page's language names it, as the chart's axis does ("Nov 2026", "Nov. 2026"). */
const monthFormats = new Map<string, Intl.DateTimeFormat>();
function monthName(yearMonth: string, language: string): string {
  let format = monthFormats.get(language);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(language, { month: 'short', year: 'numeric', timeZone: 'UTC' });
    monthFormats.set(language, format);
  }
  const [year, month] = yearMonth.split('-').map(Number);
  return format.format(Date.UTC(year!, month! - 1, 1));
}

export const analyticsPage: DashboardPage = {
  nav: [{ href: '/analytics', label: 'nav.analytics', least: 'viewer', feature: 'analytics' }],
  routes(web, ctx: AppContext) {
    web.get('/analytics', { preHandler: requireUser('viewer', 'analytics') }, async (request, reply) => {
      const principal = scopeOf(request);
      const t = pageTranslator(languageOf(request), analyticsCatalog);
      const properties = await listVisibleProperties(ctx.db, principal, ctx.propertyNames);
      // ?property=<id>: one property of the reach (a form's select; "" is all of them); any other id is not found.
      const asked = (request.query as { property?: unknown }).property;
      const chosen = typeof asked === 'string' && asked !== '' ? properties.find((p) => p.id === asked.toLowerCase()) ?? null : null;
      if (typeof asked === 'string' && asked !== '' && chosen === null) throw new AppError(404, 'no such property in your reach');
      const view = await analyticsView(ctx.db, principal, properties.map((p) => p.id), new Date(), chosen?.id ?? null);
      return renderPage(request, reply, 'dashboard/analytics.eta', {
        title: t('analytics.title'), view, names: new Map(properties.map((p) => [p.id, p.name])), properties, chosen,
        monthName: (yearMonth: string) => monthName(yearMonth, languageOf(request)),
        chart: JSON.stringify({ months: view.months, series: view.series.map((x) => ({ ...x, platform: platformName(x.platform) })), monthLabel: t('analytics.month') }),
        styles: ['/assets/uPlot.min.css'], scripts: ['/assets/uPlot.iife.min.js', '/assets/score-chart.js'],
      }, analyticsCatalog);
    });
  },
};
