import { waitUntil, watchCompletions } from './completion-watch.js';
import { benchAddress, requestJson } from './gateway-session.js';
import { orderSellers } from './order-sellers.js';

/*
 * The quotes the order scenario orders (issue 36), made before its timed part through the gateway's REST API
 * as a salesperson's tools would: an availability request per address gathered from the Sonata sellers, a
 * customer per quote, and a quote with the first product of each seller's network.
 */

/**
 * Requests gathered at once. Small: a Sonata query (token, POQ, its wait, Quote, its wait) must finish
 * within the source's timeout, bulkhead queue included, and this part is not what is measured.
 */
const batchSize = 25;
/** Times an address is gathered before the preparation gives up on it. */
const attemptsPerAddress = 5;
/** Quotes made at once (each is a customer and a quote). */
const parallelQuotes = 10;

/** Runs `work` over `items`, `width` at a time, keeping their order. */
async function inBatches<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>) {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += width) {
    results.push(...(await Promise.all(items.slice(start, start + width).map(work))));
  }
  return results;
}

/**
 * Gathers one request per address `indexes` (`benchAddress`) and returns, per address gathered with a
 * product of every seller's network, those products' ids; the others are left out, and why is counted in
 * `failures` (`not completed`, or a network and its source's error code).
 */
async function gatherProducts(
  baseUrl: string,
  token: string,
  indexes: readonly number[],
  failures: Map<string, number>,
): Promise<Map<number, string[]>> {
  const watch = await watchCompletions(`${baseUrl.replace('http', 'ws')}/graphql`, token);
  let created: { id: string }[];
  try {
    const body = indexes.map((index) => ({ address: benchAddress(index) }));
    created = (await requestJson(`${baseUrl}/availability-requests`, { token, body, expect: 201 })).body.data;
    await waitUntil(() => created.every(({ id }) => watch.completedAt.has(id)), 60_000);
  } finally {
    watch.close();
  }
  const found = new Map<number, string[]>();
  await inBatches(created, parallelQuotes, async ({ id }) => {
    const { body } = await requestJson(`${baseUrl}/availability-requests/${id}`, { token });
    const { status, products, sources } = body.data as {
      status: string;
      products: { id: string; network: string }[];
      sources: { network: string; error: { code: string } | null }[];
    };
    const ids = orderSellers.map(({ network }) => products.find((each) => each.network === network)?.id);
    const index = indexes[created.findIndex((request) => request.id === id)];
    if (index !== undefined && ids.every((product) => product !== undefined)) found.set(index, ids);
    else {
      const reasons =
        status === 'completed'
          ? sources
              .filter((source) => source.error)
              .map((source) => `${source.network}: ${source.error?.code}`)
          : [`not completed (${status})`];
      for (const reason of reasons) failures.set(reason, (failures.get(reason) ?? 0) + 1);
    }
  });
  return found;
}

/**
 * Makes `count` quotes at the gateway `baseUrl` (signed in with `token`), each for a customer of its own at
 * its own address (`benchAddress(firstAddress + k)`), with one product of each of {@link orderSellers}'
 * networks — so that each order of one is three supplier orders, one per seller. An address whose request
 * lacks a network's product (a seller's query timed out) is gathered again.
 * @returns the quotes' ids.
 * @throws Error when an address still lacks a product after five requests.
 */
export async function prepareOrderQuotes(
  baseUrl: string,
  token: string,
  count: number,
  firstAddress: number,
): Promise<string[]> {
  const products = new Map<number, string[]>();
  const failures = new Map<string, number>();
  const wanted = Array.from({ length: count }, (_, k) => firstAddress + k);
  for (let attempt = 1; products.size < count; attempt += 1) {
    const missing = wanted.filter((index) => !products.has(index));
    if (attempt > attemptsPerAddress) {
      const why = [...failures].map(([reason, times]) => `${reason} × ${times}`).join(', ');
      throw new Error(
        `${missing.length} addresses lack a product of a seller after ${attemptsPerAddress} requests (${why})`,
      );
    }
    for (let start = 0; start < missing.length; start += batchSize) {
      const batch = missing.slice(start, start + batchSize);
      const found = await gatherProducts(baseUrl, token, batch, failures);
      for (const [index, ids] of found) products.set(index, ids);
    }
  }
  return inBatches(wanted, parallelQuotes, async (index) => {
    const customer = await requestJson(`${baseUrl}/customers`, {
      token,
      body: { name: `Order bench customer ${index}` },
      expect: 201,
    });
    const quote = await requestJson(`${baseUrl}/quotes`, {
      token,
      body: {
        name: 'Head office',
        customer_id: customer.body.data.id,
        availability_request_product_ids: products.get(index),
      },
      expect: 201,
    });
    return quote.body.data.id as string;
  });
}
