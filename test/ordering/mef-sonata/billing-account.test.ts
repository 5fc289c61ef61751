import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { givenSonataSettings, sonataSettingsOptions } from '../../../src/cli/sonata.js';
import { sonataSourceSettingsSchema } from '../../../src/gathering/sources/mef-sonata/settings.js';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../../helpers/app.js';
import { settingsFor } from './fixtures.js';

/*
 * A Sonata source's billing account (MEF 123 R33 `billingAccount.id` of every order item): an optional
 * setting, given through GraphQL or the CLI's flags, shown with the settings.
 */

const sonataInput = {
  baseUrl: 'https://sonata.carrier.example/api',
  oauth2: {
    tokenUrl: 'https://auth.carrier.example/oauth2/token',
    clientId: 'gateway',
    clientSecret: 's3cr3t-42',
  },
  buyerContact: { name: 'NOC', emailAddress: 'noc@reseller.example', number: '+31 20 555 0100' },
  productOfferings: [
    {
      productOfferingId: 'bia-fiber-dia',
      technologyType: 'FIBER',
      connectionType: 'DIA',
      bandwidths: [{ download: 100_000, upload: 100_000 }],
      contractTerms: [36],
    },
  ],
  interaction: 'INSTANT',
};
const REGISTER = `mutation ($input: RegisterSonataSourceInput!) {
  registerSonataSource(input: $input) { source { id sonata { billingAccountId } } }
}`;
const UPDATE = `mutation ($id: ID!, $sonata: SonataSettingsInput!) {
  updateSonataSource(id: $id, sonata: $sonata) { source { sonata { billingAccountId } } }
}`;

describe('the billingAccountId setting', () => {
  it('when given, then kept; when left out, then absent (orders then name the buyerId or instance code); never empty', () => {
    const base = settingsFor('http://127.0.0.1:1');
    expect(sonataSourceSettingsSchema.parse({ ...base, billingAccountId: 'BA-7731' }).billingAccountId).toBe(
      'BA-7731',
    );
    expect('billingAccountId' in sonataSourceSettingsSchema.parse(base)).toBe(false);
    expect(sonataSourceSettingsSchema.safeParse({ ...base, billingAccountId: '' }).success).toBe(false);
  });

  it('when the CLI is given --billing-account-id, then the settings carry it; without it, nothing', () => {
    const options = (args: string[]) =>
      sonataSettingsOptions(new Command().exitOverride(), false).parse(args, { from: 'user' }).opts();
    expect(givenSonataSettings(options(['--billing-account-id', 'BA-7731']))).toEqual({
      billingAccountId: 'BA-7731',
    });
    expect(givenSonataSettings(options(['--interaction', 'deferred']))).toEqual({ interaction: 'deferred' });
  });
});

describe('billingAccountId through GraphQL', () => {
  let server: TestServer;
  let admin: TestTenant;

  beforeAll(async () => {
    server = await startTestServer({ startWorker: false });
    admin = await server.tenant({ demoCatalog: false, roles: ['instance_admin'] });
  });
  afterAll(async () => {
    await server.close();
  });

  it('when a seller is registered with one and updated without, then the source shows it, then null', async () => {
    const input = { key: 'carrier-sonata', name: 'Carrier', network: 'Carrier', countryCodes: ['NL'] };
    const registered = await admin.api.graphql(REGISTER, {
      input: { ...input, sonata: { ...sonataInput, billingAccountId: 'BA-7731' } },
    });
    expect(registered.errors).toBeUndefined();
    const source = registered.data.registerSonataSource.source as Json;
    expect(source.sonata).toEqual({ billingAccountId: 'BA-7731' });

    const updated = await admin.api.graphql(UPDATE, { id: source.id, sonata: sonataInput });
    expect(updated.errors).toBeUndefined();
    expect(updated.data.updateSonataSource.source.sonata).toEqual({ billingAccountId: null });
  });
});
