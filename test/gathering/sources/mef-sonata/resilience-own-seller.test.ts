import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SonataSourceSettings } from '../../../../src/gathering/sources/mef-sonata/settings.js';
import { createMefSonataSource } from '../../../../src/gathering/sources/mef-sonata/source.js';
import { type SonataValidator, sonataValidator } from '../../../helpers/sonata-openapi.js';
import { failure, fastPolicy, json, queryOf, sonataProblems, sourceRow } from './fixtures.js';
import { type OwnSeller, ownToken, startOwnSeller } from './own-seller.js';

/*
 * What the adapter's calls carry, and what it makes of answers the simulator never gives, from a seller of
 * the test's own: MEF error bodies, a secret echoed back, a redirect to another host, an oversized or
 * malformed answer; and a source without valid settings. Failures the simulator can show are in
 * resilience.test.ts.
 */

let validator: SonataValidator;
beforeAll(async () => {
  validator = await sonataValidator();
});

describe('mef-sonata source against a seller of the test’s own', () => {
  let own: OwnSeller;
  beforeAll(async () => {
    own = await startOwnSeller();
  });
  afterAll(() => own.stop());
  beforeEach(() => {
    own.exchanges.length = 0;
    own.server.received.length = 0;
  });
  afterEach(() => {
    expect(sonataProblems(validator, own)).toEqual([]);
  });

  const adapterFor = (settings: SonataSourceSettings) =>
    createMefSonataSource({ now: () => new Date(), settingsOf: () => settings, policy: fastPolicy });
  const source = () => sourceRow({ key: 'own', network: 'Eurofiber' });

  it('when a call goes out, then it carries the bearer token and the documents’ JSON media type', async () => {
    own.poq = () => ({ status: 403, body: { code: 'accessDenied', reason: 'Not onboarded.' } });

    await adapterFor(own.settings())
      .fetchOffers(queryOf(source()))
      .catch(() => {});

    const [token, poq] = own.server.received;
    expect([token?.method, token?.path, token?.headers.authorization]).toEqual([
      'POST',
      '/token',
      // RFC 6749 §2.3.1: id and secret are form-urlencoded before the Basic encoding ("-" → "%2D").
      `Basic ${Buffer.from('gateway:own%2Dseller%2Dsecret%2D42').toString('base64')}`,
    ]);
    expect(token?.body).toBe('grant_type=client_credentials');
    expect([poq?.headers.authorization, poq?.headers['content-type'], poq?.headers.accept]).toEqual([
      `Bearer ${ownToken}`,
      'application/json;charset=utf-8',
      'application/json',
    ]);
  });

  it.each([
    [
      400,
      'SONATA_BAD_REQUEST',
      { code: 'invalidBody', reason: 'Body is not a POQ.' },
      'The seller answered 400 to the POQ create: invalidBody (Body is not a POQ.).',
    ],
    [
      403,
      'SONATA_FORBIDDEN',
      { code: 'accessDenied', reason: 'Not onboarded.' },
      'The seller answered 403 to the POQ create: accessDenied (Not onboarded.).',
    ],
    [
      422,
      'SONATA_UNPROCESSABLE',
      [
        {
          code: 'referenceNotFound',
          propertyPath: '/productOfferingQualificationItem/0/product/productOffering/id',
          reason: 'Unknown offering.',
        },
        { code: 'missingProperty', propertyPath: '/relatedContactInformation', reason: 'Contact needed.' },
      ],
      'The seller answered 422 to the POQ create: referenceNotFound (Unknown offering.) at /productOfferingQualificationItem/0/product/productOffering/id; missingProperty (Contact needed.) at /relatedContactInformation.',
    ],
  ])(
    'when the seller answers %i with its MEF error, then %s names it, after one call',
    async (status, code, body, message) => {
      own.poq = () => ({ status, body });

      const result = adapterFor(own.settings()).fetchOffers(queryOf(source()));

      await expect(result).rejects.toEqual(failure(code, message));
      expect(own.exchanges).toHaveLength(1);
    },
  );

  it('when a seller’s error echoes the client secret, then the message shows it redacted', async () => {
    own.poq = () => ({
      status: 403,
      body: { code: 'forbiddenRequester', reason: 'Client own-seller-secret-42 is not allowed.' },
    });

    const result = adapterFor(own.settings()).fetchOffers(queryOf(source()));

    await expect(result).rejects.toEqual(
      failure(
        'SONATA_FORBIDDEN',
        'The seller answered 403 to the POQ create: forbiddenRequester (Client [redacted] is not allowed.).',
      ),
    );
  });

  it('when the seller redirects to another host, then REDIRECT and the other host is never called', async () => {
    const elsewhere = await startOwnSeller();
    try {
      own.poq = () => (res) => {
        res.writeHead(307, {
          location: `${elsewhere.server.url.replace('127.0.0.1', 'localhost')}/seller/x`,
        });
        res.end();
      };

      const result = adapterFor(own.settings()).fetchOffers(queryOf(source()));

      await expect(result).rejects.toEqual(
        failure(
          'REDIRECT',
          'The seller answered 307 to another host to the POQ create (redirects are not followed).',
        ),
      );
      expect(elsewhere.server.received).toEqual([]);
    } finally {
      await elsewhere.stop();
    }
  });

  it('when the answer is larger than 2 MiB, then RESPONSE_TOO_LARGE, read no further', async () => {
    own.poq = () => (res) => json(res, 201, { id: 'poq-1', padding: 'x'.repeat(3 * 1024 * 1024) });

    const result = adapterFor(own.settings()).fetchOffers(queryOf(source()));

    await expect(result).rejects.toEqual(failure('RESPONSE_TOO_LARGE', 'The answer exceeds 2097152 bytes.'));
  });

  it('when the answer is JSON but not a POQ, then INVALID_RESPONSE names where', async () => {
    own.poq = () => (res) =>
      json(res, 201, { id: 'poq-1', state: 'finished', productOfferingQualificationItem: [] });

    const result = adapterFor(own.settings()).fetchOffers(queryOf(source()));

    await expect(result).rejects.toEqual(
      failure('INVALID_RESPONSE', /^The seller’s POQ create answer breaks the MEF document at \/state: /),
    );
  });

  it('when the source has no valid settings, then NOT_CONFIGURED and nothing is called', async () => {
    const adapter = createMefSonataSource({
      now: () => new Date(),
      settingsOf: () => ({ ...own.settings(), baseUrl: 'http://seller.example/' }),
      policy: fastPolicy,
    });

    const result = adapter.fetchOffers(queryOf(source()));

    await expect(result).rejects.toEqual(
      failure('NOT_CONFIGURED', 'The source has no valid MEF Sonata settings.'),
    );
    expect(own.server.received).toEqual([]);
  });
});
