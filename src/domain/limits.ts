/**
 * The largest amounts the exchange can produce, enforced on every feed line (feed/validate.ts)
 * so that no accepted feed can break a query. Each bound is far above anything the market has
 * seen, and together they keep every stored amount and every sum exact; docs/feed-format.md
 * ("Limits") gives the reasoning and the arithmetic.
 */

/**
 * Lots in one trade, one side of a book, one custom market: 10,000 lots of 1 MW are 10 GW,
 * about a third of the NEM's peak demand; real trades are 1 to a few hundred lots.
 */
export const MAX_LOTS = 10_000;

/**
 * Open interest of one contract: 1,000,000 MW is about thirty times the NEM's peak demand;
 * real open interest runs from tens to a few thousand lots.
 */
export const MAX_OPEN_INTEREST = 1_000_000;

/**
 * Any price, premium, settlement, index value, custom-market net, leg price and ratio, and
 * implied volatility, in absolute value, in hundredths: 100,000.00 is about five times the
 * NEM's market price cap (A$20,300/MWh from July 2025), and no average of capped spot prices
 * can exceed that cap.
 */
export const MAX_ABS_HUNDREDTHS = 10_000_000;

/**
 * Events of one trading date, all markets together: seq numbers a date's stream from 1, so
 * this bounds seq. A busy simulated day holds about 10,000 events.
 */
export const MAX_EVENTS_PER_DAY = 1_000_000;

/** Publication times (Unix seconds) up to 2100-01-01, the end of the exchange calendar. */
export const MAX_PUBLISHED_AT = 4_102_444_800;

/**
 * One NDJSON line, without its line break, in bytes: the longest valid line (a 4,000-character
 * message written with \u escapes) is about 24 KiB.
 */
export const MAX_LINE_BYTES = 64 * 1024;
