/** A price as the page states it, with the amount and currency read from it. */
export interface Price {
  text: string;
  amount: number;
  currency: string;
  /** What the price is per ("month", "user", …) when the page says so. */
  period: string | null;
}

const SYMBOL_CURRENCIES: Readonly<Record<string, string>> = {
  $: 'USD', US$: 'USD', A$: 'AUD', C$: 'CAD', NZ$: 'NZD', HK$: 'HKD', '€': 'EUR', '£': 'GBP', '¥': 'JPY', '₹': 'INR',
};
const CODES = 'USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|HKD|INR|CNY|SEK|NOK|DKK|PLN|BRL|MXN|SGD|ZAR';
const SYMBOL = '(?:US|A|C|NZ|HK)?\\$|[€£¥₹]';
/** Grouped thousands ("1,299", "1.299,00") before plain amounts ("49", "12.50"). */
const AMOUNT = '\\d{1,3}(?:[.,]\\d{3})+(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?';
const PERIOD = '(?:\\s*/\\s*|\\s+per\\s+)(month|mo|year|yr|annum|week|day|hour|hr|user|seat|member|license|licence|GB|TB|request)s?\\b';

/**
 * Three ways to write a price: symbol first ("$49", "€ 12"), code first ("USD 12.50"), amount
 * first ("1.299,00 €", "49 EUR"). An amount-first currency must not be followed by a number,
 * or "in 2026 $49" would read as a price of 2026.
 */
const FORMS: ReadonlyArray<{ pattern: RegExp; symbol: number; code: number; amount: number; period: number }> = [
  { pattern: new RegExp(`(${SYMBOL})\\s?(${AMOUNT})(?!\\d)(?:${PERIOD})?`, 'giu'), symbol: 1, code: 0, amount: 2, period: 3 },
  { pattern: new RegExp(`\\b(${CODES})\\s?(${AMOUNT})(?!\\d)(?:${PERIOD})?`, 'gu'), symbol: 0, code: 1, amount: 2, period: 3 },
  {
    pattern: new RegExp(`(?<![\\w.,])(${AMOUNT})\\s?(?:(${SYMBOL})|(${CODES})\\b)(?!\\s?\\d)(?:${PERIOD})?`, 'gu'),
    symbol: 2,
    code: 3,
    amount: 1,
    period: 4,
  },
];

const PERIOD_NAMES: Readonly<Record<string, string>> = { mo: 'month', yr: 'year', annum: 'year', hr: 'hour', licence: 'license' };

/**
 * Reads "1,299.00", "1.299,00", "12,50" and "49". When both separators appear the last one is
 * the decimal point; a lone separator followed by exactly three digits groups thousands.
 */
export function parseAmount(text: string): number {
  const lastDot = text.lastIndexOf('.');
  const lastComma = text.lastIndexOf(',');
  let decimal: string | null = null;
  if (lastDot >= 0 && lastComma >= 0) decimal = lastDot > lastComma ? '.' : ',';
  else if (lastDot >= 0 || lastComma >= 0) {
    const separator = lastDot >= 0 ? '.' : ',';
    const occurrences = text.split(separator).length - 1;
    const digitsAfter = text.length - text.lastIndexOf(separator) - 1;
    decimal = occurrences === 1 && digitsAfter !== 3 ? separator : null;
  }
  const normalized = decimal === null ? text.replace(/[.,]/g, '') : text.replace(decimal === '.' ? /,/g : /\./g, '').replace(decimal, '.');
  return Number(normalized);
}

interface Match {
  start: number;
  end: number;
  price: Price;
}

export const MAX_PRICES = 50;

/**
 * Every price in `text`: a currency symbol or ISO code next to an amount, on either side, with
 * an optional "/month" or "per user". Where two readings overlap ("$49 USD") the earlier and
 * longer one wins, so a price is listed once.
 */
export function extractPrices(text: string): Price[] {
  const matches: Match[] = [];
  for (const form of FORMS) {
    for (const m of text.matchAll(form.pattern)) {
      const symbol = form.symbol ? m[form.symbol] : undefined;
      const code = form.code ? m[form.code] : undefined;
      const currency = symbol ? SYMBOL_CURRENCIES[symbol.toUpperCase()] ?? SYMBOL_CURRENCIES[symbol] : code;
      if (!currency) continue;
      const period = m[form.period]?.toLowerCase();
      matches.push({
        start: m.index,
        end: m.index + m[0].length,
        price: {
          text: m[0].replace(/\s+/g, ' ').replace(/\s*\/\s*/g, '/').trim(),
          amount: parseAmount(m[form.amount]!),
          currency,
          period: period ? (PERIOD_NAMES[period] ?? period) : null,
        },
      });
    }
  }
  matches.sort((a, b) => a.start - b.start || b.end - a.end);
  const prices: Price[] = [];
  const seen = new Set<string>();
  let coveredUntil = -1;
  for (const match of matches) {
    if (match.start < coveredUntil) continue;
    coveredUntil = match.end;
    if (seen.has(match.price.text) || !Number.isFinite(match.price.amount)) continue;
    seen.add(match.price.text);
    prices.push(match.price);
    if (prices.length >= MAX_PRICES) break;
  }
  return prices;
}
