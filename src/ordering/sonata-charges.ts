import type { OrderCharge, SourceRow } from '../db/rows.js';
import { SonataClient } from '../gathering/sources/mef-sonata/client.js';
import { sonataSourceSettingsSchema } from '../gathering/sources/mef-sonata/settings.js';
import { createMefSonataSource } from '../gathering/sources/mef-sonata/source.js';
import { storedSonataSettings } from '../gathering/sources/mef-sonata/stored.js';
import { SourceError } from '../gathering/sources/types.js';
import { SonataOrdering } from './mef-sonata/ordering-client.js';
import { chargeOf } from './sonata-line-progress.js';

/**
 * Answers a seller's Charge for the buyer (MEF 123 `PATCH /charge/{id}`, every charge item's
 * `acceptanceIndicator` `accepted` or `rejected`; R94, R95), outside the order worker: an admin's answer
 * goes to the seller while they wait. A client of its own, bounded by the source's `timeoutMs`.
 *
 * @returns the Charge as the seller answers it, as a line keeps it.
 * @throws {SourceError} `NOT_CONFIGURED` for a source without valid Sonata settings; the Sonata client's
 *   codes otherwise (a seller's 409 — answered already, or past its due date — is `UPSTREAM_4XX`).
 */
export async function answerSonataCharge(
  source: SourceRow,
  chargeId: string,
  accept: boolean,
  now: () => Date,
): Promise<OrderCharge> {
  const parsed = sonataSourceSettingsSchema.safeParse(storedSonataSettings(source));
  if (!parsed.success)
    throw new SourceError('NOT_CONFIGURED', 'The source has no valid MEF Sonata settings.', false);
  const adapter = createMefSonataSource({ now, settingsOf: storedSonataSettings });
  const ordering = new SonataOrdering(new SonataClient(adapter.policies, adapter.tokens, now));
  const signal = new AbortController().signal;
  const view = await ordering.answerCharge(
    {
      source,
      settings: parsed.data,
      deadline: AbortSignal.timeout(source.timeoutMs),
      querySignal: signal,
    },
    chargeId,
    accept,
  );
  return chargeOf(view);
}
