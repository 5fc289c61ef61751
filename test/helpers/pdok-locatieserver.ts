import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One BAG address the stand-in knows, as the Locatieserver's `free` search documents it. */
export interface BagAddress {
  postcode: string;
  huisnummer: number;
  straatnaam: string;
  woonplaatsnaam: string;
  /** WKT, `POINT(<longitude> <latitude>)`. */
  centroide_ll: string;
}

/** Lijnbaansgracht 206, 1016 XA Amsterdam: the contract's example address, at a point of the test's own. */
export const LIJNBAANSGRACHT_206: BagAddress = {
  postcode: '1016XA',
  huisnummer: 206,
  straatnaam: 'Lijnbaansgracht',
  woonplaatsnaam: 'Amsterdam',
  centroide_ll: 'POINT(4.88012345 52.37198765)',
};

/** How the stand-in answers: as PDOK does, with a 503, or never (it holds the request open). */
export type LocatieserverMode = 'answer' | 'fail' | 'hang';

export interface Locatieserver {
  url: string;
  /** The query string of every request, in order. */
  queries: URLSearchParams[];
  /** How the next requests are answered; `answer` until changed. */
  mode: LocatieserverMode;
  close(): Promise<void>;
}

/**
 * A stand-in for the PDOK Locatieserver v3.1 `free` endpoint on 127.0.0.1, answering a search
 * `postcode:<pc> and huisnummer:<nr>` in its documented format from `addresses` (`numFound: 0` for others).
 */
export async function startLocatieserver(addresses: readonly BagAddress[] = [LIJNBAANSGRACHT_206]) {
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://pdok.test');
    stand.queries.push(url.searchParams);
    if (stand.mode === 'fail') {
      res.writeHead(503).end();
      return;
    }
    if (stand.mode === 'hang') {
      held.push(res);
      return;
    }
    const docs = addresses
      .filter(
        (address) =>
          url.pathname === '/free' &&
          url.searchParams.get('q') === `postcode:${address.postcode} and huisnummer:${address.huisnummer}`,
      )
      .map((address) => ({
        type: 'adres',
        weergavenaam: `${address.straatnaam} ${address.huisnummer}, ${address.postcode} ${address.woonplaatsnaam}`,
        ...address,
      }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ response: { numFound: docs.length, start: 0, maxScore: 17.5, docs } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stand: Locatieserver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    queries: [],
    mode: 'answer',
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return stand;
}
