/**
 * The API writes exact decimals as strings. The charts need numbers (a float is exact enough to
 * place a pixel); every figure shown as text is the API's own string, or a difference computed
 * in hundredths so that 84.50 - 84.35 shows 0.15, not 0.15000000000000568.
 */

/** A decimal string as a number; null for null, empty or malformed values. */
export function num(value: string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}

/** a - b of two 2-decimal prices, written with 2 decimals and a sign; '' when either is missing. */
export function priceChange(a: string | null | undefined, b: string | null | undefined): string {
  const x = num(a);
  const y = num(b);
  if (x === null || y === null) return '';
  const cents = Math.round(x * 100) - Math.round(y * 100);
  const sign = cents > 0 ? '+' : cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

const thousands = new Intl.NumberFormat('en-AU', { maximumFractionDigits: 0 });

/** A whole number with thousands separators, for reading at a glance. */
export function whole(value: number | string | null | undefined): string {
  const parsed = typeof value === 'number' ? value : num(value);
  return parsed === null ? '' : thousands.format(parsed);
}

/** An exact decimal string with thousands separators on its whole part, digits untouched. */
export function grouped(value: string): string {
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(value);
  if (!match) return value;
  return `${match[1]}${(match[2] ?? '').replace(/\B(?=(\d{3})+$)/g, ',')}${match[3] ?? ''}`;
}
