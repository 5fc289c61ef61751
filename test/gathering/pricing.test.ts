import { describe, expect, it } from 'vitest';
import {
  applyMarkup,
  type Markup,
  markupFor,
  type PricingPlan,
  type PricingRule,
  salePrices,
} from '../../src/gathering/pricing.js';

/** A rule with the given criteria (the rest null) whose MRC markup identifies it. */
function rule(
  criteria: Partial<PricingRule>,
  mrcMarkupBp: number,
  nrcMarkupBp = mrcMarkupBp / 2,
): PricingRule {
  return { network: null, technologyType: null, connectionType: null, mrcMarkupBp, nrcMarkupBp, ...criteria };
}

function plan(rules: PricingRule[]): PricingPlan {
  return { mrcMarkupBp: 2500, nrcMarkupBp: 1500, rules };
}

const kpnFiberDia = { network: 'KPN', technologyType: 'FIBER', connectionType: 'DIA' };

/** The markup pair alone (markupFor answers the plan itself when no rule matches). */
function markupPair({ mrcMarkupBp, nrcMarkupBp }: Markup): Markup {
  return { mrcMarkupBp, nrcMarkupBp };
}

describe('markupFor', () => {
  it('when the plan has no rules, then the plan’s default markups apply', () => {
    expect(markupPair(markupFor(plan([]), kpnFiberDia))).toEqual({ mrcMarkupBp: 2500, nrcMarkupBp: 1500 });
  });

  it('when no rule matches every criterion it sets, then the plan’s default markups apply', () => {
    const rules = [
      rule({ network: 'Ziggo' }, 100),
      rule({ technologyType: 'FTTH' }, 200),
      rule({ connectionType: 'SHARED' }, 300),
      rule({ network: 'KPN', connectionType: 'SHARED' }, 400),
      rule({ network: 'KPN', technologyType: 'FIBER', connectionType: 'SHARED' }, 500),
    ];

    const markup = markupFor(plan(rules), kpnFiberDia);

    expect(markupPair(markup)).toEqual({ mrcMarkupBp: 2500, nrcMarkupBp: 1500 });
  });

  it('when network+connection, network alone and connection alone all match, then network+connection wins, in any order', () => {
    const networkAndConnection = rule({ network: 'KPN', connectionType: 'DIA' }, 2800, 1800);
    const network = rule({ network: 'KPN' }, 2200, 1200);
    const connection = rule({ connectionType: 'DIA' }, 3000, 2000);

    for (const rules of [
      [connection, network, networkAndConnection],
      [networkAndConnection, network, connection],
      [network, networkAndConnection, connection],
    ]) {
      expect(markupFor(plan(rules), kpnFiberDia)).toBe(networkAndConnection);
    }
  });

  it('when only network alone and connection alone match, then network alone wins', () => {
    const network = rule({ network: 'KPN' }, 2200);
    const connection = rule({ connectionType: 'DIA' }, 3000);

    expect(markupFor(plan([connection, network]), kpnFiberDia)).toBe(network);
    expect(markupFor(plan([network, connection]), kpnFiberDia)).toBe(network);
  });

  it('when a 3-criteria rule matches besides 2-criteria rules, then the 3-criteria rule wins', () => {
    const all = rule(kpnFiberDia, 1000);
    const twos = [
      rule({ network: 'KPN', technologyType: 'FIBER' }, 2000),
      rule({ network: 'KPN', connectionType: 'DIA' }, 3000),
      rule({ technologyType: 'FIBER', connectionType: 'DIA' }, 4000),
    ];

    expect(markupFor(plan([...twos, all]), kpnFiberDia)).toBe(all);
    expect(markupFor(plan([all, ...twos]), kpnFiberDia)).toBe(all);
  });

  it('when a 2-criteria rule without network matches besides 1-criterion network rule, then the 2-criteria rule wins', () => {
    const techAndConnection = rule({ technologyType: 'FIBER', connectionType: 'DIA' }, 4000);
    const network = rule({ network: 'KPN' }, 2200);

    expect(markupFor(plan([network, techAndConnection]), kpnFiberDia)).toBe(techAndConnection);
  });

  it.each([
    ['network', 'technology', { network: 'KPN' }, { technologyType: 'FIBER' }],
    ['network', 'connection', { network: 'KPN' }, { connectionType: 'DIA' }],
    ['technology', 'connection', { technologyType: 'FIBER' }, { connectionType: 'DIA' }],
    [
      'network+technology',
      'network+connection',
      { network: 'KPN', technologyType: 'FIBER' },
      { network: 'KPN', connectionType: 'DIA' },
    ],
    [
      'network+connection',
      'technology+connection',
      { network: 'KPN', connectionType: 'DIA' },
      { technologyType: 'FIBER', connectionType: 'DIA' },
    ],
  ])('when %s and %s rules both match, then the %s rule wins', (_winner, _loser, winning, losing) => {
    const winner = rule(winning, 1111);
    const loser = rule(losing, 9999);

    expect(markupFor(plan([loser, winner]), kpnFiberDia)).toBe(winner);
    expect(markupFor(plan([winner, loser]), kpnFiberDia)).toBe(winner);
  });

  it('when the demo Standard plan prices its offers, then each gets the markups its most specific rule sets', () => {
    const standard = plan([
      rule({ connectionType: 'DIA' }, 3000, 2000),
      rule({ network: 'KPN' }, 2200, 1200),
      rule({ network: 'KPN', connectionType: 'DIA' }, 2800, 1800),
      rule({ technologyType: 'FTTH' }, 1800, 1000),
      rule({ network: 'Ziggo', technologyType: 'FIBER', connectionType: 'SHARED' }, 2000, 0),
    ]);
    const markups = (network: string, technologyType: string, connectionType: string) => {
      const { mrcMarkupBp, nrcMarkupBp } = markupFor(standard, { network, technologyType, connectionType });
      return [mrcMarkupBp, nrcMarkupBp];
    };

    expect(markups('KPN', 'FIBER', 'DIA')).toEqual([2800, 1800]);
    expect(markups('KPN', 'FTTH', 'SHARED')).toEqual([2200, 1200]);
    expect(markups('Tele2', 'FTTH', 'SHARED')).toEqual([1800, 1000]);
    expect(markups('Colt', 'FIBER', 'DIA')).toEqual([3000, 2000]);
    expect(markups('Ziggo', 'FIBER', 'SHARED')).toEqual([2000, 0]);
    expect(markups('Ziggo', 'FIBER', 'DIA')).toEqual([3000, 2000]);
    expect(markups('Tele2', 'VDSL', 'SHARED')).toEqual([2500, 1500]);
  });
});

describe('applyMarkup', () => {
  it.each([
    ['4995 cents +25 %', 4995, 2500, 6244], // 6243.75
    ['1 cent +50 %', 1, 5000, 2], // 1.5, half up
    ['2 cents +25 %', 2, 2500, 3], // 2.5, half up
    ['3 cents +15 %', 3, 1500, 3], // 3.45
    ['999 cents +12.5 %', 999, 1250, 1124], // 1123.875
    ['0 cents +25 %', 0, 2500, 0],
    ['4995 cents −100 %', 4995, -10_000, 0],
    ['1001 cents −50 %', 1001, -5000, 501], // 500.5, half up
    ['1000 cents −12.5 %', 1000, -1250, 875],
    ['4995 cents +0 %', 4995, 0, 4995],
    ['4995 cents +1000 %', 4995, 100_000, 54_945],
    ['12 345 678 901 cents +0.01 %', 12_345_678_901, 1, 12_346_913_469], // 12 346 913 468.8901
  ])('when %s, then it is exactly the rounded sale amount', (_name, amount, bp, expected) => {
    expect(applyMarkup(amount, bp)).toBe(expected);
  });
});

describe('salePrices', () => {
  it('when an offer is priced, then MRC and NRC use the MRC and NRC markups of its most specific rule', () => {
    const standard = plan([
      rule({ connectionType: 'DIA' }, 3000, 2000),
      rule({ network: 'KPN', connectionType: 'DIA' }, 2800, 1800),
    ]);

    const prices = salePrices(standard, { ...kpnFiberDia, purchaseMrcMinor: 4995, purchaseNrcMinor: 25_000 });

    // 4995 × 1.28 = 6393.6 → 6394; 25 000 × 1.18 = 29 500.
    expect(prices).toEqual({ mrcMinor: 6394, nrcMinor: 29_500 });
  });

  it('when no rule matches, then the plan’s default markups price the offer', () => {
    const prices = salePrices(plan([rule({ network: 'Ziggo' }, 9999)]), {
      network: 'Tele2',
      technologyType: 'VDSL',
      connectionType: 'SHARED',
      purchaseMrcMinor: 3395,
      purchaseNrcMinor: 10_001,
    });

    // 3395 × 1.25 = 4243.75 → 4244; 10 001 × 1.15 = 11 501.15 → 11 501.
    expect(prices).toEqual({ mrcMinor: 4244, nrcMinor: 11_501 });
  });
});
