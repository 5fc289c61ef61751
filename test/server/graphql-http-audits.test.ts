import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/app.js';

/**
 * graphql-http's audits of the GraphQL-over-HTTP spec, one test each, against the running service and
 * without an auth token (they query `{ __typename }`, which needs no viewer). A MUST has to pass; a
 * SHOULD or MAY that does not is reported as a warning annotation on its test.
 */
describe('GraphQL over HTTP compliance (graphql-http audits)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ startWorker: false });
  });
  afterAll(() => server.close());

  const audits = serverAudits({ url: () => `${server.app.url}/graphql`, fetchFn: fetch });

  for (const audit of audits) {
    it(audit.name, async ({ annotate }) => {
      const result = await audit.fn();

      if (result.status === 'ok') return;
      const reason = `${result.status}: ${result.reason}`;
      if (audit.name.startsWith('MUST')) expect.fail(reason);
      await annotate(reason, 'warning');
    });
  }
});
