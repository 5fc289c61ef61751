import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { storedRows } from '../helpers/store.js';

/*
 * Registering MEF LSO Sonata sellers through GraphQL (issue 18, item 3): the settings are validated by the
 * adapter's schema, the client secret is stored server-side and never returned.
 */

const secret = 'sonata-client-secret-4f1d9a';
const FIELDS = `id key type endpointUrl hasCredentials timeoutMs
  sonata {
    baseUrl buyerId sellerId interaction
    oauth2 { tokenUrl clientId scope hasClientSecret }
    buyerContact { name emailAddress number organization }
    productOfferings { productOfferingId technologyType connectionType bandwidths { download upload } contractTerms }
    poll { initialDelayMs maxDelayMs }
    orderPoll { initialDelayMs maxDelayMs }
  }`;
const REGISTER = `mutation ($input: RegisterSonataSourceInput!) { registerSonataSource(input: $input) { source { ${FIELDS} } } }`;
const UPDATE = `mutation ($id: ID!, $sonata: SonataSettingsInput!) {
  updateSonataSource(id: $id, sonata: $sonata) { source { ${FIELDS} } }
}`;

const sonata = {
  baseUrl: 'https://sonata.carrier.example/api',
  sellerId: 'carrier-nl',
  oauth2: {
    tokenUrl: 'https://auth.carrier.example/oauth2/token',
    clientId: 'gateway',
    clientSecret: secret,
  },
  buyerContact: { name: 'NOC', emailAddress: 'noc@reseller.example', number: '+31 20 555 0100' },
  productOfferings: [
    {
      productOfferingId: 'bia-fiber-dia',
      technologyType: 'FIBER',
      connectionType: 'DIA',
      bandwidths: [{ download: 100_000, upload: 100_000 }],
      contractTerms: [12, 36],
    },
  ],
  interaction: 'NOTIFICATIONS',
};
const input = { key: 'carrier-sonata', name: 'Carrier', network: 'Carrier', countryCodes: ['NL'], sonata };

const shown = {
  key: 'carrier-sonata',
  type: 'mef-sonata',
  endpointUrl: 'https://sonata.carrier.example/api',
  hasCredentials: true,
  timeoutMs: 10_000,
  sonata: {
    baseUrl: 'https://sonata.carrier.example/api',
    buyerId: null,
    sellerId: 'carrier-nl',
    interaction: 'NOTIFICATIONS',
    oauth2: {
      tokenUrl: 'https://auth.carrier.example/oauth2/token',
      clientId: 'gateway',
      scope: null,
      hasClientSecret: true,
    },
    buyerContact: {
      name: 'NOC',
      emailAddress: 'noc@reseller.example',
      number: '+31 20 555 0100',
      organization: null,
    },
    productOfferings: sonata.productOfferings,
    poll: { initialDelayMs: 250, maxDelayMs: 5000 },
    orderPoll: { initialDelayMs: 1000, maxDelayMs: 300_000 },
  },
};

describe('registerSonataSource and updateSonataSource', () => {
  let server: TestServer;
  let admin: TestTenant;
  let id: string;

  beforeAll(async () => {
    server = await startTestServer({ startWorker: false });
    admin = await server.tenant({ demoCatalog: false, roles: ['instance_admin'] });
  });
  afterAll(async () => {
    await server.close();
  });

  it('when a Sonata seller is registered, then the source shows its settings and never the client secret, which is stored', async () => {
    const registered = await admin.api.graphql(REGISTER, { input });
    const listed = await admin.api.graphql(`{ sources { ${FIELDS} } }`);

    expect(registered.errors).toBeUndefined();
    id = registered.data.registerSonataSource.source.id;
    expect(registered.data.registerSonataSource.source).toEqual({ id, ...shown });
    expect(listed.data.sources).toEqual([{ id, ...shown }]);
    expect(JSON.stringify([registered, listed])).not.toContain(secret);
    const [row] = (await storedRows(server.app.services.db, 'sources', { id })) as Json[];
    expect([row.credentials, row.endpointUrl, row.settings.oauth2]).toEqual([
      secret,
      'https://sonata.carrier.example/api',
      { tokenUrl: 'https://auth.carrier.example/oauth2/token', clientId: 'gateway' },
    ]);
  });

  it('when the settings are invalid, then BAD_USER_INPUT names each field by its path and nothing is added', async () => {
    const result = await admin.api.graphql(REGISTER, {
      input: {
        ...input,
        key: 'broken-sonata',
        sonata: {
          ...sonata,
          baseUrl: 'http://sonata.carrier.example',
          oauth2: { ...sonata.oauth2, clientSecret: undefined },
          buyerContact: { ...sonata.buyerContact, emailAddress: 'not an address' },
          productOfferings: [{ ...sonata.productOfferings[0], contractTerms: [] }],
          poll: { initialDelayMs: 0 },
        },
      },
    });

    expect(result.data).toBeNull();
    expect(result.errors).toEqual([
      expect.objectContaining({
        message: 'The source is invalid.',
        extensions: {
          code: 'BAD_USER_INPUT',
          problems: [
            { path: '/sonata/baseUrl', message: 'must be an https URL (plain http only to a loopback host)' },
            {
              path: '/sonata/oauth2/clientSecret',
              message: 'Invalid input: expected string, received undefined',
            },
            { path: '/sonata/buyerContact/emailAddress', message: 'Invalid email address' },
            {
              path: '/sonata/productOfferings/0/contractTerms',
              message: 'Too small: expected array to have >=1 items',
            },
            { path: '/sonata/poll/initialDelayMs', message: 'Too small: expected number to be >=1' },
          ],
        },
      }),
    ]);
    expect((await admin.api.graphql('{ sources { key } }')).data.sources).toEqual([
      { key: 'carrier-sonata' },
    ]);
  });

  it('when the settings are updated without a client secret, then the stored one is kept; an http source is refused', async () => {
    const { clientSecret: _secret, ...oauth2 } = sonata.oauth2;
    const updated = await admin.api.graphql(UPDATE, {
      id,
      sonata: {
        ...sonata,
        oauth2,
        interaction: 'DEFERRED',
        poll: { maxDelayMs: 2000 },
        orderPoll: { initialDelayMs: 60_000 },
      },
    });
    const http = await admin.api.graphql(
      'mutation ($input: RegisterSourceInput!) { registerSource(input: $input) { source { id } } }',
      {
        input: {
          key: 'plain',
          name: 'Plain',
          network: 'Plain',
          countryCodes: ['NL'],
          endpointUrl: 'https://x.example',
        },
      },
    );
    const refused = await admin.api.graphql(UPDATE, { id: http.data.registerSource.source.id, sonata });

    expect(updated.data.updateSonataSource.source).toEqual({
      id,
      ...shown,
      sonata: {
        ...shown.sonata,
        interaction: 'DEFERRED',
        poll: { initialDelayMs: 250, maxDelayMs: 2000 },
        orderPoll: { initialDelayMs: 60_000, maxDelayMs: 300_000 },
      },
    });
    const [row] = (await storedRows(server.app.services.db, 'sources', { id })) as Json[];
    expect(row.credentials).toBe(secret);
    expect(refused.errors).toEqual([
      expect.objectContaining({
        extensions: {
          code: 'BAD_USER_INPUT',
          problems: [{ path: '/id', message: 'is not a mef-sonata source (its type is http)' }],
        },
      }),
    ]);
  });
});
