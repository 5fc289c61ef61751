import { beforeEach, describe, expect, it } from 'vitest';
import { SonataNotificationInbox } from '../../../../src/gathering/sources/mef-sonata/inbox.js';
import { handleSonataNotification } from '../../../../src/gathering/sources/mef-sonata/notification-handler.js';
import {
  redactedSonataSettings,
  sonataSourceSettingsSchema,
} from '../../../../src/gathering/sources/mef-sonata/settings.js';
import { type SonataValidator, sonataValidator } from '../../../helpers/sonata-openapi.js';
import { buyerContact } from './fixtures.js';

const sourceId = 'src_01jh3m8x5qf2s9v7c4k0d6t1ab';
const listener = '/mefApi/sonata/productOfferingQualificationNotification/v7/listener/poqStateChangeEvent';
const event = {
  eventId: 'e-1',
  eventTime: '2025-01-06T09:00:00.000Z',
  eventType: 'poqStateChangeEvent',
  event: { id: 'poq-17', href: 'https://seller.example/poq-17' },
};

let inbox: SonataNotificationInbox;
let token: string;
beforeEach(() => {
  inbox = new SonataNotificationInbox({
    secret: 'test-callback-secret-0123456789abcdef',
    callbackBaseUrl: 'https://gateway.example/sonata-callbacks/',
  });
  token = inbox.callbackUrl(sourceId).split('/').at(-1) ?? '';
});

const post = (
  path: string,
  body: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) => handleSonataNotification(inbox, { sourceId, path, headers, body });
const poqKey = { sourceId, api: 'poq' as const, resourceId: 'poq-17' };

describe('the Sonata notification callback', () => {
  it('when a source’s callback is asked for, then it is the base, the source id and a 43-character token of that source', () => {
    expect(inbox.callbackUrl(sourceId)).toMatch(
      new RegExp(`^https://gateway\\.example/sonata-callbacks/${sourceId}/[A-Za-z0-9_-]{43}$`),
    );
    expect(inbox.authenticates(sourceId, token)).toBe(true);
    expect(inbox.authenticates('src_other', token)).toBe(false);
    expect(inbox.authenticates(sourceId, `${token.slice(0, -1)}x`)).toBe(false);
  });

  it('when a valid event arrives, then 204 and the POQ has one event; the same event again: 204 and still one', () => {
    const first = post(`/${token}${listener}`, event);
    const again = post(`/${token}${listener}`, JSON.stringify(event));

    expect([first, again]).toEqual([
      { status: 204, body: null },
      { status: 204, body: null },
    ]);
    expect(inbox.count(poqKey)).toBe(1);
    expect(
      inbox.deliver({
        sourceId,
        api: 'poq',
        eventId: 'e-1',
        eventType: 'poqStateChangeEvent',
        eventTime: event.eventTime,
        resourceId: 'poq-17',
        itemId: null,
      }),
    ).toBe(false);
  });

  it.each([
    [
      'no token',
      listener,
      event,
      401,
      { code: 'invalidCredentials', reason: 'The notification callback is not authenticated.' },
    ],
    [
      'an empty token',
      `/${listener}`,
      event,
      401,
      { code: 'missingCredentials', reason: 'The notification callback is not authenticated.' },
    ],
    [
      'another source’s token',
      `/TOKEN-OF-OTHER${listener}`,
      event,
      401,
      { code: 'invalidCredentials', reason: 'The notification callback is not authenticated.' },
    ],
    [
      'an unknown listener',
      '/TOKEN/mefApi/sonata/productOfferingQualificationNotification/v7/listener/poqDeleteEvent',
      event,
      404,
      { code: 'notFound', reason: 'No notification listener at this path.' },
    ],
    [
      'an event without eventId',
      `/TOKEN${listener}`,
      { ...event, eventId: undefined },
      400,
      {
        code: 'invalidBody',
        reason: 'The event is not valid.',
        message: 'The event does not match the POQ notification Event at /eventId.',
      },
    ],
    [
      'a Quote event at a POQ listener',
      `/TOKEN${listener}`,
      { ...event, eventType: 'quoteStateChangeEvent' },
      400,
      {
        code: 'invalidBody',
        reason: 'The event is not valid.',
        message: 'The event does not match the POQ notification Event at /eventType.',
      },
    ],
    [
      'an item event at the state listener',
      `/TOKEN${listener}`,
      { ...event, eventType: 'poqItemStateChangeEvent' },
      400,
      {
        code: 'invalidBody',
        reason: 'The event is not valid.',
        message: 'An poqItemStateChangeEvent was sent to the poqStateChangeEvent listener.',
      },
    ],
    [
      'a body that is not JSON',
      `/TOKEN${listener}`,
      '{"eventId": ',
      400,
      {
        code: 'invalidBody',
        reason: 'The event is not valid.',
        message: 'The event does not match the POQ notification Event at /.',
      },
    ],
  ])(
    'when a callback has %s, then it is answered %i and nothing is delivered',
    (_case, path, body, status, answer) => {
      const other = new SonataNotificationInbox({
        secret: 'test-callback-secret-0123456789abcdef',
        callbackBaseUrl: 'https://x',
      });
      const otherToken = other.callbackUrl('src_other').split('/').at(-1) ?? '';

      const response = post(path.replace('TOKEN-OF-OTHER', otherToken).replace('TOKEN', token), body);

      expect(response).toEqual({ status, body: answer });
      expect(inbox.count(poqKey)).toBe(0);
    },
  );

  it('when the event is sent as text/plain, then it is refused 400', () => {
    const response = post(`/${token}${listener}`, event, { 'Content-Type': 'text/plain' });

    expect(response).toEqual({
      status: 400,
      body: {
        code: 'invalidBody',
        reason: 'The event is not valid.',
        message: 'The event must be sent as application/json.',
      },
    });
  });

  it('when the source registered with buyer and seller ids, then an event naming others is refused and one naming them is taken', () => {
    inbox.describeSource(sourceId, { buyerId: 'reseller-17', sellerId: 'colt' });

    const foreign = post(`/${token}${listener}`, {
      ...event,
      event: { ...event.event, buyerId: 'reseller-99' },
    });
    const own = post(`/${token}${listener}`, {
      ...event,
      event: { ...event.event, buyerId: 'reseller-17', sellerId: 'colt' },
    });

    expect(foreign.status).toBe(400);
    expect(foreign.body?.message).toBe(
      'The event names another buyerId or sellerId than the source registered with.',
    );
    expect(own.status).toBe(204);
    expect(inbox.count(poqKey)).toBe(1);
  });

  it('when an event the handler accepts is checked against the notification document, then it is valid there too', async () => {
    const validator: SonataValidator = await sonataValidator();

    expect(validator.notification('poq', { path: listener, body: event })).toEqual([]);
  });
});

describe('the Sonata notification inbox', () => {
  const deliver = (eventId: string, eventType = 'poqStateChangeEvent') =>
    inbox.deliver({
      sourceId,
      api: 'poq',
      eventId,
      eventType,
      eventTime: event.eventTime,
      resourceId: 'poq-17',
      itemId: null,
    });

  it('when events arrived before anyone waits, then waiting returns at once with their count', async () => {
    deliver('e-1');
    deliver('e-2');

    await expect(inbox.waitFor(poqKey, 0, new AbortController().signal)).resolves.toBe(2);
  });

  it('when a waiter waits for state changes, then item events do not wake it and the next state change does', async () => {
    const waiting = inbox.waitFor(poqKey, 0, new AbortController().signal, ['poqStateChangeEvent']);
    let woke = false;
    void waiting.then(() => {
      woke = true;
    });

    deliver('i-1', 'poqItemStateChangeEvent');
    await Promise.resolve();
    const wokeOnItem = woke;
    deliver('s-1', 'poqStateChangeEvent');

    await expect(waiting).resolves.toBe(1);
    expect(wokeOnItem).toBe(false);
    expect(inbox.count(poqKey)).toBe(2);
  });

  it('when the wait is aborted, then it rejects with the abort’s reason', async () => {
    const controller = new AbortController();
    const reason = new Error('stopped');

    const waiting = inbox.waitFor(poqKey, 0, controller.signal);
    controller.abort(reason);

    await expect(waiting).rejects.toBe(reason);
  });

  it('when more event ids arrive than it keeps, then the oldest are forgotten first', () => {
    const small = new SonataNotificationInbox({
      secret: 'test-callback-secret-0123456789abcdef',
      callbackBaseUrl: 'https://x',
      maxEntries: 2,
    });
    const give = (eventId: string) =>
      small.deliver({
        sourceId,
        api: 'poq',
        eventId,
        eventType: 'poqStateChangeEvent',
        eventTime: event.eventTime,
        resourceId: eventId,
        itemId: null,
      });

    const answers = [give('a'), give('b'), give('c'), give('b'), give('a')];

    expect(answers).toEqual([true, true, true, false, true]);
  });
});

describe('the Sonata source settings', () => {
  const settings = {
    baseUrl: 'https://sonata.colt.example/api',
    oauth2: {
      tokenUrl: 'https://auth.colt.example/oauth2/token',
      clientId: 'gw',
      clientSecret: 's3cr3t-value',
    },
    buyerContact,
    productOfferings: [
      {
        productOfferingId: 'colt-dia',
        technologyType: 'FIBER',
        connectionType: 'DIA',
        bandwidths: [{ download: 100_000, upload: 100_000 }],
        contractTerms: [12, 36],
      },
    ],
    interaction: 'notifications',
  };

  it('when settings leave out the poll back-off, then the defaults apply', () => {
    expect(sonataSourceSettingsSchema.parse(settings).poll).toEqual({
      initialDelayMs: 250,
      maxDelayMs: 5_000,
    });
  });

  it.each([
    ['a plain http seller on another host', { baseUrl: 'http://sonata.colt.example/api' }, ['baseUrl']],
    [
      'a plain http token endpoint on another host',
      { oauth2: { ...settings.oauth2, tokenUrl: 'http://auth.colt.example/token' } },
      ['oauth2', 'tokenUrl'],
    ],
    ['no product offering', { productOfferings: [] }, ['productOfferings']],
    ['an unknown interaction', { interaction: 'push' }, ['interaction']],
  ])('when settings have %s, then they are refused there', (_case, change, path) => {
    const parsed = sonataSourceSettingsSchema.safeParse({ ...settings, ...change });

    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path)).toEqual([path]);
  });

  it('when plain http goes to a loopback host (the simulator), then it is allowed', () => {
    expect(
      sonataSourceSettingsSchema.safeParse({
        ...settings,
        baseUrl: 'http://127.0.0.1:4100/sonata/colt/instant',
        oauth2: { ...settings.oauth2, tokenUrl: 'http://localhost:4100/sonata/colt/oauth2/token' },
      }).success,
    ).toBe(true);
  });

  it('when settings are shown, then the client secret is replaced by whether there is one', () => {
    const shown = redactedSonataSettings(sonataSourceSettingsSchema.parse(settings));

    expect(shown.oauth2).toEqual({
      tokenUrl: 'https://auth.colt.example/oauth2/token',
      clientId: 'gw',
      hasClientSecret: true,
    });
    expect(JSON.stringify(shown)).not.toContain('s3cr3t-value');
  });
});
