import type { Region } from '../../domain/catalogue.js';
import type { Contract, OptionType } from '../../domain/contract.js';
import { type DatamineClass, datamineClass, quarterlyEquivalentThirds } from '../../domain/datamine.js';
import { deliveryHours } from '../../domain/hours.js';
import { isElectricity, type MarketCode } from '../../domain/markets.js';
import type { Instrument } from '../store.js';

/** What the store keeps about a contract, derived once from the domain when first seen. */
export interface ContractInfo {
  readonly code: string;
  readonly market: MarketCode;
  readonly instrument: Instrument;
  readonly root: string;
  readonly month: number;
  readonly year: number;
  readonly strikeCents: number | null;
  readonly optionType: OptionType | null;
  /** Delivery hours; null outside electricity (no face value or MWh there). */
  readonly hours: number | null;
  readonly mwTenths: number;
  readonly datamineClass: DatamineClass | null;
  readonly region: Region;
  readonly qeThirds: number;
}

const cache = new Map<string, ContractInfo>();

export function contractInfo(contract: Contract): ContractInfo {
  const known = cache.get(contract.code);
  if (known) return known;
  const { product } = contract;
  const info: ContractInfo = {
    code: contract.code,
    market: product.market,
    instrument: contract.kind,
    root: product.root,
    month: contract.month,
    year: contract.year,
    strikeCents: contract.kind === 'option' ? contract.strikeCents : null,
    optionType: contract.kind === 'option' ? contract.optionType : null,
    hours: isElectricity(product.market) ? deliveryHours(contract) : null,
    mwTenths: product.mwTenths,
    datamineClass: datamineClass(contract) ?? null,
    region: product.region,
    qeThirds: quarterlyEquivalentThirds(contract),
  };
  cache.set(contract.code, info);
  return info;
}
