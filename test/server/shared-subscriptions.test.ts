import { Repeater } from '@repeaterjs/repeater';
import {
  type ExecutionResult,
  execute,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/context.js';
import { SharedSubscriptions } from '../../src/server/shared-subscriptions.js';

/** One state of a subject, as the event stream carries it. */
interface State {
  id: string;
  rank: number;
}

/**
 * A schema whose one subscription, `states`, behaves as `availabilityRequestUpdated` does: with
 * `subscriptionPhase: 'snapshot'` it yields the current states and ends, with `live` it follows the
 * source. Counts how many live streams were opened and closed, and how often `rank` was resolved.
 */
function fixture() {
  const live: { push(state: State): void; fail(error: Error): void }[] = [];
  const counts = { opened: 0, closed: 0, executions: 0 };
  let current: State[] = [];
  const State = new GraphQLObjectType({
    name: 'State',
    fields: {
      id: { type: new GraphQLNonNull(GraphQLString) },
      rank: {
        type: new GraphQLNonNull(GraphQLInt),
        resolve: (state: State) => {
          counts.executions += 1;
          return state.rank;
        },
      },
    },
  });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        states: {
          type: new GraphQLNonNull(State),
          subscribe: (_root, _args, ctx: Context) =>
            ctx.subscriptionPhase === 'snapshot'
              ? new Repeater<State>(async (push, stop) => {
                  for (const state of current) await push(state);
                  stop();
                })
              : new Repeater<State>(async (push, stop) => {
                  counts.opened += 1;
                  live.push({ push: (state) => void push(state), fail: (error) => stop(error) });
                  await stop;
                  counts.closed += 1;
                }),
          resolve: (state: State) => state,
        },
      },
    }),
  });
  const shared = new SharedSubscriptions((payload) => {
    const state = payload as State;
    return { subject: state.id, rank: state.rank };
  });
  const subscribe = async () => {
    const stream = await shared.subscribe(
      'one key',
      { schema, document: parse('subscription { states { id rank } }'), contextValue: {} },
      (args) => execute(args) as Promise<ExecutionResult>,
    );
    if (!(Symbol.asyncIterator in stream)) throw new Error('the stream did not start');
    return stream;
  };
  return {
    shared,
    counts,
    subscribe,
    setCurrent: (states: State[]) => {
      current = states;
    },
    publish: (state: State) => {
      for (const source of live) source.push(state);
    },
    fail: (error: Error) => {
      for (const source of live) source.fail(error);
    },
  };
}

/** Reads `count` results from a stream. */
async function take(stream: AsyncIterator<ExecutionResult>, count: number): Promise<unknown[]> {
  const results: unknown[] = [];
  for (let i = 0; i < count; i += 1) results.push((await stream.next()).value);
  return results;
}

const state = (id: string, rank: number) => ({ data: { states: { id, rank } } });

describe('SharedSubscriptions', () => {
  it('when two clients subscribe with one key, then one live stream serves both and each event runs once', async () => {
    const { shared, counts, subscribe, publish } = fixture();
    const first = await subscribe();
    const second = await subscribe();
    await new Promise((resolve) => setImmediate(resolve));

    publish({ id: 'a', rank: 1 });
    publish({ id: 'b', rank: 1 });
    const results = await Promise.all([take(first, 2), take(second, 2)]);

    expect(results).toEqual([
      [state('a', 1), state('b', 1)],
      [state('a', 1), state('b', 1)],
    ]);
    expect({ opened: counts.opened, executions: counts.executions }).toEqual({ opened: 1, executions: 2 });
    expect({ groups: shared.groupCount, subscribers: shared.subscriberCount }).toEqual({
      groups: 1,
      subscribers: 2,
    });
  });

  it('when a client joins late, then its snapshot comes first and a live state older than it is skipped', async () => {
    const { subscribe, publish, setCurrent } = fixture();
    const early = await subscribe();
    await new Promise((resolve) => setImmediate(resolve));
    setCurrent([{ id: 'a', rank: 3 }]);

    const late = await subscribe();
    publish({ id: 'a', rank: 2 });
    publish({ id: 'a', rank: 4 });

    expect(await take(late, 2)).toEqual([state('a', 3), state('a', 4)]);
    expect(await take(early, 2)).toEqual([state('a', 2), state('a', 4)]);
  });

  it('when the last client leaves, then the live stream is closed and the group is gone', async () => {
    const { shared, counts, subscribe } = fixture();
    const first = await subscribe();
    const second = await subscribe();
    await new Promise((resolve) => setImmediate(resolve));

    await first.return?.();
    const afterFirst = { closed: counts.closed, groups: shared.groupCount };
    await second.return?.();
    await new Promise((resolve) => setImmediate(resolve));

    expect(afterFirst).toEqual({ closed: 0, groups: 1 });
    expect({ closed: counts.closed, groups: shared.groupCount, subscribers: shared.subscriberCount }).toEqual(
      {
        closed: 1,
        groups: 0,
        subscribers: 0,
      },
    );
  });

  it('when the live stream fails, then every waiting client’s read fails with that error', async () => {
    const { subscribe, fail } = fixture();
    const first = await subscribe();
    const second = await subscribe();
    await new Promise((resolve) => setImmediate(resolve));
    const reads = [first.next(), second.next()];

    fail(new Error('event bus gone'));

    await expect(reads[0]).rejects.toThrow('event bus gone');
    await expect(reads[1]).rejects.toThrow('event bus gone');
    expect(await first.next()).toEqual({ done: true, value: undefined });
  });
});
