// Renders a report.html in headless Chromium (Debian's, through
// playwright-core) with the network off, and prints one JSON object: console
// errors and page errors, every chart with the length of each series' path
// ("d" attribute) and its markers, and the tables; a full-page screenshot
// goes to SHOT.
//   node tests/js/check_report.js REPORT.html SHOT.png
'use strict';
const path = require('path');
const { chromium } = require('playwright-core');

(async () => {
  const [file, shot] = process.argv.slice(2);
  if (!file || !shot) {
    console.error('usage: check_report.js REPORT.html SHOT.png');
    process.exit(2);
  }
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const errors = [];
  const requests = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
    page.on('pageerror', (e) => errors.push('page: ' + e.message));
    // a self-contained page asks for nothing but itself
    page.on('request', (r) => { if (!r.url().startsWith('file:')) requests.push(r.url()); });
    await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
    const info = await page.evaluate(() => {
      const charts = {};
      for (const svg of document.querySelectorAll('svg.chart')) {
        const id = svg.id.replace(/^chart-/, '');
        const series = {};
        for (const p of svg.querySelectorAll('path[data-series]')) {
          const d = p.getAttribute('d').trim();
          const box = p.getBBox();
          series[p.getAttribute('data-series')] = { points: (d.match(/[ML]/g) || []).length, width: box.width, height: box.height };
        }
        charts[id] = {
          series,
          crossings: svg.querySelectorAll('line.crossing').length,
          dumps: svg.querySelectorAll('rect.dump').length,
          gcs: svg.querySelectorAll('line.gc').length,
          allocs: svg.querySelectorAll('line.alloc').length,
          drops: svg.querySelectorAll('path.drop').length,
          thresholds: svg.querySelectorAll('line.threshold').length,
        };
      }
      return {
        title: document.title,
        h2: [...document.querySelectorAll('h2')].map((h) => h.textContent),
        tables: document.querySelectorAll('table').length,
        findings: [...document.querySelectorAll('ul.find li')].map((li) => li.textContent),
        charts,
      };
    });
    await page.screenshot({ path: shot, fullPage: true });
    // and each chart alone, beside it: SHOT-<chart>.png
    for (const id of Object.keys(info.charts))
      await page.locator('#chart-' + id).screenshot({ path: shot.replace(/\.png$/, '') + '-' + id + '.png' });
    console.log(JSON.stringify({ errors, requests, ...info }));
  } finally {
    await browser.close();
  }
  process.exit(errors.length || requests.length ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(3); });
