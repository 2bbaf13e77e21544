import { describe, expect, it } from 'vitest';
import { nonPublicKind } from '../../../src/net/address-policy.js';
import { calendarDate, extractDates } from '../../../agents/market-research-agent/extract-dates.js';
import { extractPage } from '../../../agents/market-research-agent/extract-page.js';
import { extractPrices, parseAmount } from '../../../agents/market-research-agent/extract-prices.js';

const PRICING_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Acme Cloud &mdash; Pricing</title>
<style>.price:before { content: "$999"; }</style>
<script>window.plans = { hidden: "$12345" };</script></head>
<body>
<nav><a href="/">Home</a></nav>
<h1>Plans &amp; pricing</h1>
<p>Prices updated <time datetime="2026-02-27T09:00:00Z">last week</time>. Effective March 5, 2026.</p>
<section><h2 class="plan">Starter</h2><p class="price"><span>$</span>49<span>/month</span></p></section>
<section><h2>Team</h2><p>USD 12.50 per user, billed annually</p></section>
<section><h2>Enterprise <small>(EU)</small></h2><p>1.299,00 € per year &middot; contract from 5 March 2026</p></section>
<h3>Archive</h3><p>Old price list of 2025-11-30: £1,200/yr.</p>
<h4>Footnotes are not headings we report</h4>
<!-- <h2>Commented out</h2> $77 -->
<p>Founded in 2019 with 2026 customers.</p>
</body></html>`;

describe('page extraction', () => {
  it('reads the title, h1-h3 headings, prices and dates a pricing page states', () => {
    const facts = extractPage(PRICING_PAGE);
    expect(facts.title).toBe('Acme Cloud — Pricing');
    expect(facts.headings).toEqual([
      { level: 1, text: 'Plans & pricing' },
      { level: 2, text: 'Starter' },
      { level: 2, text: 'Team' },
      { level: 2, text: 'Enterprise (EU)' },
      { level: 3, text: 'Archive' },
    ]);
    expect(facts.prices).toEqual([
      { text: '$ 49/month', amount: 49, currency: 'USD', period: 'month' },
      { text: 'USD 12.50 per user', amount: 12.5, currency: 'USD', period: 'user' },
      { text: '1.299,00 € per year', amount: 1299, currency: 'EUR', period: 'year' },
      { text: '£1,200/yr', amount: 1200, currency: 'GBP', period: 'year' },
    ]);
    expect(facts.dates.map((d) => [d.text, d.date])).toEqual([
      ['March 5, 2026', '2026-03-05'],
      ['5 March 2026', '2026-03-05'],
      ['2025-11-30', '2025-11-30'],
      ['2026-02-27T09:00:00Z', '2026-02-27'],
    ]);
  });

  it('never reports script, style or comment contents, nor bare years and counts as prices', () => {
    const texts = extractPage(PRICING_PAGE).prices.map((p) => p.amount);
    expect(texts).not.toContain(999);
    expect(texts).not.toContain(12345);
    expect(texts).not.toContain(77);
    expect(texts).not.toContain(2026);
  });
});

describe('prices', () => {
  it('reads symbol-first, code-first and amount-first prices with their currency', () => {
    expect(extractPrices('Pro costs $49 a seat; Max €1.299,00; Lite 19 EUR; Team CHF 30/mo; Plus A$15').map((p) => [p.text, p.amount, p.currency, p.period])).toEqual([
      ['$49', 49, 'USD', null],
      ['€1.299,00', 1299, 'EUR', null],
      ['19 EUR', 19, 'EUR', null],
      ['CHF 30/mo', 30, 'CHF', 'month'],
      ['A$15', 15, 'AUD', null],
    ]);
  });

  it('lists a price once when symbol and code both name it, and never reads a year before a price', () => {
    expect(extractPrices('Now $49 USD in 2026 $5/month').map((p) => p.text)).toEqual(['$49', '$5/month']);
  });

  it('tells decimal points from thousands separators', () => {
    expect(parseAmount('1,299.00')).toBe(1299);
    expect(parseAmount('1.299,00')).toBe(1299);
    expect(parseAmount('12,50')).toBe(12.5);
    expect(parseAmount('1,000,000')).toBe(1_000_000);
    expect(parseAmount('49')).toBe(49);
  });
});

describe('dates', () => {
  it('reads ISO, month-first and day-first dates and skips impossible days', () => {
    expect(extractDates('Due 2026-04-31 or April 30th, 2026, then 1 Sept. 2026 and Feb 29, 2028; not 31 June 2026.')).toEqual([
      { text: 'April 30th, 2026', date: '2026-04-30' },
      { text: '1 Sept. 2026', date: '2026-09-01' },
      { text: 'Feb 29, 2028', date: '2028-02-29' },
    ]);
    expect(calendarDate(2027, 2, 29)).toBeNull();
  });
});

describe('address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.10', 'private'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd12:3456::1', 'unique-local'],
    ['fe80::1%eth0', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:c0a8:101', 'private'],
    ['64:ff9b::10.0.0.1', 'private'],
  ])('classifies %s as %s', (address, kind) => {
    expect(nonPublicKind(address)).toBe(kind);
  });

  it.each(['93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('treats %s as public', (address) => {
    expect(nonPublicKind(address)).toBeNull();
  });
});
