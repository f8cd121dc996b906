import type { FuturesContract, OptionContract } from '../../domain/contract.js';
import { deliveryHours } from '../../domain/hours.js';
import type { MarketCode } from '../../domain/markets.js';
import type { Action } from './activity.js';
import type { Curve } from './curve.js';
import type { DayListing } from './day-listing.js';
import type { EventLog, Quote } from './event-log.js';
import type { IntradayPrices } from './intraday.js';
import { blockNoticeText, customMarket, registeredText, rfqText } from './messages.js';
import type { OpenInterest } from './open-interest.js';
import { futuresQuote, optionQuote, optionValue } from './pricing.js';
import type { Rng } from './prng.js';
import { settle } from './settlement.js';
import { hoursWeightedCents, stripQuarters } from './structure.js';

/** Everything one trading day's session works with. */
export interface DayContext {
  readonly date: string;
  readonly rng: Rng;
  readonly log: EventLog;
  readonly prices: IntradayPrices;
  readonly curve: Curve;
  readonly openInterest: OpenInterest;
  readonly listing: DayListing;
}

/** Runs the planned actions in time order, appending their events to the day's log. */
export function runSession(context: DayContext, actions: readonly Action[]): void {
  let strips = 0;
  for (const action of actions) {
    switch (action.kind) {
      case 'screen':
        screenTrade(context, action.second, action.contract);
        break;
      case 'strip':
        strips += 1;
        stripTrade(context, action.second, action.contract, `S${context.date}-${strips}`);
        break;
      case 'block':
      case 'efp':
        offScreenTrade(context, action.second, action.contract, action.kind);
        break;
      case 'quote':
        context.log.book(
          action.second,
          action.contract.code,
          futuresQuote(context.rng, action.contract, context.prices.mid(action.contract, action.second)),
        );
        break;
      case 'option':
      case 'option-quote':
        optionActivity(context, action.second, action.underlying, action.kind === 'option');
        break;
      case 'rfq':
        rfq(context, action.second, action.contract);
        break;
      case 'custom':
        custom(context, action.second, action.market);
        break;
      case 'close':
        settle(context, action.second);
        break;
    }
  }
}

function lognormalLots(rng: Rng, median: number, sigma: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(median * Math.exp(sigma * rng.normal()))));
}

/** On-screen size: NZ lots are 0.1 MW, so NZ orders count more lots. */
function screenLots(rng: Rng, market: MarketCode): number {
  switch (market) {
    case 'au_electricity':
      return lognormalLots(rng, 2, 0.9, 1, 50);
    case 'nz_electricity':
      return lognormalLots(rng, 6, 0.8, 1, 50);
    case 'au_gas':
      return lognormalLots(rng, 2, 0.6, 1, 20);
    default:
      return lognormalLots(rng, 5, 0.8, 1, 50);
  }
}

/** The quote that a trade hits or lifts shows at least the traded size. */
function showing(quote: Quote, buy: boolean, volume: number): Quote {
  return buy
    ? { ...quote, askSize: Math.max(quote.askSize, volume) }
    : { ...quote, bidSize: Math.max(quote.bidSize, volume) };
}

function screenTrade(context: DayContext, second: number, contract: FuturesContract): void {
  const { rng, log } = context;
  const mid = context.prices.mid(contract, second);
  const quote = futuresQuote(rng, contract, mid);
  const volume = screenLots(rng, contract.product.market);
  const buy = rng.chance(0.5);
  log.book(second, contract.code, showing(quote, buy, volume));
  log.trade(second, contract.code, buy ? quote.ask : quote.bid, volume, 'N');
  context.openInterest.trade([contract.code], volume, rng);
  if (rng.chance(0.6)) log.book(second, contract.code, futuresQuote(rng, contract, mid));
}

/**
 * An AU strip: the strip row at the hours-weighted average of its legs, then the four quarter
 * legs at allocated prices near each quarter's own price. The legs carry the positions.
 */
function stripTrade(context: DayContext, second: number, strip: FuturesContract, group: string): void {
  const { rng, log } = context;
  const legs = stripQuarters(strip);
  const legMids = legs.map((leg) => context.prices.mid(leg, second));
  const mid = context.prices.mid(strip, second);
  const quote = futuresQuote(rng, strip, mid);
  const volume = lognormalLots(rng, 3, 0.8, 1, 25);
  const buy = rng.chance(0.5);
  const price = buy ? quote.ask : quote.bid;
  const legPrices = allocateLegs(rng, legs, legMids, mid, price);
  log.book(second, strip.code, showing(quote, buy, volume));
  log.trade(second, strip.code, price, volume, 'N', group);
  legs.forEach((leg, i) => {
    log.trade(second, leg.code, legPrices[i] ?? price, volume, 'Z', group);
  });
  context.openInterest.trade(
    legs.map((leg) => leg.code),
    volume,
    rng,
  );
}

/**
 * Leg prices (whole cents) near the quarter mids, shifted by the strip's distance from its own
 * mid, with the largest leg absorbing the rounding so that the hours-weighted mean of the legs
 * rounds to the strip price exactly.
 */
export function allocateLegs(
  rng: Rng,
  legs: readonly FuturesContract[],
  legMids: readonly number[],
  stripMid: number,
  stripPrice: number,
): number[] {
  const offset = stripPrice - stripMid;
  const prices = legMids.map((legMid) => Math.max(1, Math.round(legMid + offset + 3 * rng.normal())));
  const hours = legs.map((leg) => deliveryHours(leg));
  const totalHours = hours.reduce((sum, value) => sum + value, 0);
  let anchor = 0;
  hours.forEach((value, i) => {
    if (value > (hours[anchor] ?? 0)) anchor = i;
  });
  const anchorHours = hours[anchor] ?? 1;
  const weighted = hours.reduce((sum, value, i) => sum + value * (prices[i] ?? 0), 0);
  prices[anchor] = Math.max(
    1,
    (prices[anchor] ?? 0) + Math.round((stripPrice * totalHours - weighted) / anchorHours),
  );
  // A nudge of one cent fixes the rare case where rounding the correction lands on a half.
  for (const nudge of [0, 1, -1]) {
    const trial = [...prices];
    trial[anchor] = (trial[anchor] ?? 0) + nudge;
    if (hoursWeightedCents(legs, trial) === stripPrice) return trial;
  }
  return prices;
}

function offScreenTrade(
  context: DayContext,
  second: number,
  contract: FuturesContract,
  kind: 'block' | 'efp',
): void {
  const { rng, log } = context;
  const market = contract.product.market;
  const mid = context.prices.mid(contract, second);
  const price = Math.max(1, Math.round(mid * Math.exp(0.0015 * rng.normal())));
  if (kind === 'efp') {
    const volume = lognormalLots(rng, 15, 0.5, 5, 80);
    log.trade(second, contract.code, price, volume, 'E');
    log.message(second, market, 'registered_trades', registeredText('EFP', contract.code, volume, price));
    context.openInterest.trade([contract.code], volume, rng);
    return;
  }
  // AU (and NZ) electricity blocks need 25 lots per leg; gas blocks may be small.
  const volume =
    market === 'au_gas' ? lognormalLots(rng, 8, 0.4, 5, 20) : lognormalLots(rng, 45, 0.5, 25, 400);
  log.trade(second, contract.code, price, volume, 'B');
  log.message(second, market, 'registered_trades', registeredText('Block', contract.code, volume, price));
  if (market === 'au_electricity' || market === 'nz_electricity') {
    log.message(second, market, 'message_board', blockNoticeText(contract, volume));
  }
  context.openInterest.trade([contract.code], volume, rng);
}

/** A near-the-money series of the underlying: out-of-the-money calls above, puts below. */
function pickSeries(
  rng: Rng,
  options: readonly OptionContract[],
  forwardCents: number,
): OptionContract | undefined {
  const strikes = [...new Set(options.map((option) => option.strikeCents))];
  if (strikes.length === 0) return undefined;
  const strike =
    strikes[
      rng.weightedIndex(strikes.map((value) => Math.exp(-((Math.log(value / forwardCents) / 0.08) ** 2))))
    ] ?? 0;
  const outOfTheMoney = strike >= forwardCents ? 'C' : 'P';
  const wanted = rng.chance(0.75) ? outOfTheMoney : outOfTheMoney === 'C' ? 'P' : 'C';
  return (
    options.find((option) => option.strikeCents === strike && option.optionType === wanted) ??
    options.find((option) => option.strikeCents === strike)
  );
}

function optionActivity(
  context: DayContext,
  second: number,
  underlying: FuturesContract,
  trades: boolean,
): void {
  const { rng, log } = context;
  const options = context.listing.optionsByUnderlying.get(underlying.code) ?? [];
  const forward = context.prices.mid(underlying, second);
  const series = pickSeries(rng, options, forward);
  if (!series) return;
  const value = optionValue(
    series,
    forward,
    context.date,
    context.curve.volatilityFactor(series.product.market),
  );
  // Screen premiums wander around the model value the way traders' views differ.
  const premium = value.premium * Math.exp(0.03 * rng.normal());
  const quote = optionQuote(rng, premium);
  if (!trades) {
    log.book(second, series.code, quote);
    return;
  }
  const volume = lognormalLots(rng, 5, 0.8, 1, 50);
  const buy = rng.chance(0.5);
  log.book(second, series.code, showing(quote, buy, volume));
  log.trade(second, series.code, buy ? quote.ask : quote.bid, volume, 'N');
  context.openInterest.trade([series.code], volume, rng);
}

function rfq(context: DayContext, second: number, contract: FuturesContract): void {
  const listed = context.listing.futures.get(contract.product.market) ?? [];
  const sameProduct = listed
    .filter((other) => other.product === contract.product)
    .sort((a, b) => a.year * 12 + a.month - (b.year * 12 + b.month));
  const next = sameProduct[sameProduct.indexOf(contract) + 1];
  context.log.message(second, contract.product.market, 'message_board', rfqText(context.rng, contract, next));
}

function custom(context: DayContext, second: number, market: MarketCode): void {
  const { rng } = context;
  const listed = context.listing.futures.get(market) ?? [];
  const built = customMarket(rng, listed, (contract) =>
    Math.max(1, Math.round(context.prices.mid(contract, second))),
  );
  if (!built) return;
  const size =
    market === 'nz_electricity' ? lognormalLots(rng, 10, 0.7, 1, 100) : lognormalLots(rng, 5, 0.8, 1, 50);
  context.log.customMarket(second, market, built.contract, built.netCents, size, built.legs);
}
