// Draws the Analytics page's score-over-time chart with uPlot from the data-chart attribute (the
// table below it holds the same figures for screen readers and for browsers without scripts).
(() => {
  const box = document.querySelector('[data-chart]');
  if (!box || typeof uPlot === 'undefined') return;
  const { months, series } = JSON.parse(box.getAttribute('data-chart'));
  if (months.length === 0) return;
  const colours = ['#0a58ca', '#b42318', '#067647', '#7a5af8', '#c4320a', '#475467'];
  const xs = months.map((m) => Date.parse(`${m}-01T00:00:00Z`) / 1000);
  const width = Math.max(280, box.clientWidth);
  // uPlot is the global that /assets/uPlot.iife.min.js defines (loaded before this file).
  new uPlot({
    width, height: 260,
    // One month alone would stretch over years: give it a month's room.
    scales: { x: { time: true, range: (_u, min, max) => (min === max ? [min - 15 * 86400, max + 15 * 86400] : [min, max]) }, y: { range: [1, 5] } },
    series: [{}, ...series.map((s, i) => ({ label: s.platform, stroke: colours[i % colours.length], width: 2, spanGaps: true }))],
    axes: [{}, { values: (_u, ticks) => ticks.map((v) => v.toFixed(1)) }],
  }, [xs, ...series.map((s) => s.scores)], box);
})();
