import { SourceError, type SourceNote } from '../types.js';
import type { SonataGathering } from './gather.js';
import type { SonataDeclinedItem } from './offers.js';

/**
 * The source error for a gathering that produced no offer although the seller answered something other
 * than "nothing to ask" — so the request shows why (docs/mef-sonata-mapping.md A3, A3b, A5, B3, B7);
 * null when there are offers, or when no candidate was asked at all (the filters leave none of the
 * source's offerings: a normal empty answer). None is retried: asking again gets the same answer.
 */
export function emptyGatheringError(gathering: SonataGathering): SourceError | null {
  if (gathering.offers.length > 0 || gathering.poq === null) return null;
  const { poq, quote, declined } = gathering;
  const fail = (code: string, message: string) => new SourceError(code, message, false);
  if (poq.state === 'done.unableToProvide') {
    return fail(
      'SONATA_UNABLE_TO_PROVIDE',
      `The seller could not qualify the address within the requested time (POQ ${poq.id} done.unableToProvide).`,
    );
  }
  if (poq.state === 'terminatedWithError') {
    return fail(
      'SONATA_POQ_TERMINATED',
      `The seller terminated POQ ${poq.id}${poq.terminationErrors ? `: ${poq.terminationErrors}` : ''}.`,
    );
  }
  if (quote === null) {
    const asked = declined.length;
    const red = declined.filter((item) => item.reason === 'notServiceable').length;
    if (red > 0) {
      return fail(
        'SONATA_NOT_SERVICEABLE',
        `The seller cannot deliver any of the ${asked} configurations asked at this address (${red} red).`,
      );
    }
    return fail('SONATA_POQ_TERMINATED', `The seller qualified none of the ${asked} configurations asked.`);
  }
  const quoted = declined.filter((item) => item.stage === 'quote');
  const asked = quoted.length;
  const reasons = new Set(quoted.map((item) => item.reason));
  if (reasons.has('noPrice')) {
    return fail('SONATA_NO_PRICE', `Quote ${quote.id} (${quote.state}) priced none of its ${asked} items.`);
  }
  if (reasons.has('unusableAnswer')) {
    const first = quoted.find((item) => item.reason === 'unusableAnswer');
    return fail('INVALID_RESPONSE', `Quote ${quote.id} could not be read: ${first?.detail ?? ''}.`);
  }
  return fail(
    'SONATA_QUOTE_UNABLE_TO_PROVIDE',
    `The seller cannot provide any of the ${asked} quote items (quote ${quote.id} ${quote.state}).`,
  );
}

/**
 * One line about what the seller declined in a gathering that did give offers, for the request's source
 * outcome (e.g. `2 offers; declined: 5 not serviceable, 1 without a price`); null when nothing was
 * declined. Meant for the engine to store beside a successful task (see the report of issue 18).
 */
export function declinedSummary(gathering: SonataGathering): string | null {
  if (gathering.declined.length === 0) return null;
  const labels: Record<SonataDeclinedItem['reason'], string> = {
    notServiceable: 'not serviceable',
    terminated: 'terminated',
    abandoned: 'abandoned',
    unableToProvide: 'unable to provide',
    noPrice: 'without a price',
    unusableAnswer: 'unreadable',
  };
  const counts = new Map<string, number>();
  for (const item of gathering.declined)
    counts.set(labels[item.reason], (counts.get(labels[item.reason]) ?? 0) + 1);
  const parts = [...counts].map(([label, count]) => `${count} ${label}`);
  return `${gathering.offers.length} offers; declined: ${parts.join(', ')}`;
}

/**
 * The note a partly declined gathering leaves on the request's source outcome (beside its offers):
 * code `SONATA_PARTLY_DECLINED`, message {@link declinedSummary}; null when nothing was declined.
 */
export function partlyDeclinedNote(gathering: SonataGathering): SourceNote | null {
  const summary = declinedSummary(gathering);
  return summary === null ? null : { code: 'SONATA_PARTLY_DECLINED', message: summary };
}
