// Draws the Analytics page's score-over-time chart with uPlot from the data-chart attribute (the
// table below it holds the same figures for screen readers and for browsers without scripts).
(() => {
  const box = document.querySelector('[data-chart]');
  if (!box || typeof uPlot === 'undefined') return;
  const { months, series, monthLabel } = JSON.parse(box.getAttribute('data-chart'));
  if (months.length === 0) return;
  const colours = ['#0a58ca', '#b42318', '#067647', '#7a5af8', '#c4320a', '#475467'];
  // A line style per platform as well as a colour: told apart without seeing colours (the legend's
  // markers take the same dashes).
  const dashes = [[], [8, 4], [2, 3], [12, 3, 3, 3], [4, 4], [1, 6]];
  const xs = months.map((m) => Date.parse(`${m}-01T00:00:00Z`) / 1000);
  const width = Math.max(280, box.clientWidth);
  // Month and weekday names in the page's language (uPlot's own are English), from the browser's Intl.
  const lang = document.documentElement.lang || 'en';
  const namesOf = (options, count, dateOf) => Array.from({ length: count }, (_, i) => new Intl.DateTimeFormat(lang, { ...options, timeZone: 'UTC' }).format(dateOf(i)));
  const month = (i) => new Date(Date.UTC(2026, i, 1));
  const weekday = (i) => new Date(Date.UTC(2026, 10, 1 + i)); // 2026-11-01 is a Sunday, uPlot's day 0
  const names = {
    MMMM: namesOf({ month: 'long' }, 12, month), MMM: namesOf({ month: 'short' }, 12, month),
    WWWW: namesOf({ weekday: 'long' }, 7, weekday), WWW: namesOf({ weekday: 'short' }, 7, weekday),
  };
  // uPlot is the global that /assets/uPlot.iife.min.js defines (loaded before this file).
  const chart = new uPlot({
    width, height: 260,
    // One month alone would stretch over years: give it a month's room.
    scales: { x: { time: true, range: (_u, min, max) => (min === max ? [min - 15 * 86400, max + 15 * 86400] : [min, max]) }, y: { range: [1, 5] } },
    fmtDate: (template) => uPlot.fmtDate(template, names),
    // The months are calendar months in UTC (as the table's): shown in UTC, not shifted into the browser's zone.
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'UTC'),
    series: [{ label: monthLabel, value: '{MMMM} {YYYY}' }, ...series.map((s, i) => ({ label: s.platform, stroke: colours[i % colours.length], dash: dashes[i % dashes.length], width: 2, spanGaps: true }))],
    axes: [{}, { values: (_u, ticks) => ticks.map((v) => v.toFixed(1)) }],
    // The legend's values follow the pointer; on a touch screen nothing hovers, and it showed "--".
    legend: { live: !window.matchMedia('(hover: none)').matches },
  }, [xs, ...series.map((s) => s.scores)], box);
  // The chart follows its box: a window made narrower, or zoomed in, after the page loaded does not
  // leave it wider than the page (which then scrolled sideways).
  let drawnWidth = width;
  new ResizeObserver(() => {
    const next = Math.max(280, box.clientWidth);
    if (next !== drawnWidth) {
      drawnWidth = next;
      chart.setSize({ width: next, height: 260 });
    }
  }).observe(box);
})();
