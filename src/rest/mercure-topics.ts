import { UriTemplateMatcher } from 'uri-template-matcher';
import { AppError } from '../errors.js';
import {
  type EventStreamTopicKind,
  eventStreamTopic,
  eventStreamTopicKinds,
  parseEventStreamTopic,
} from '../resolvers/event-stream-token.js';

/** `topic` parameters one subscription may give, and the length of each: bounds on the matching work. */
const MAX_TOPICS = 20;
const MAX_TOPIC_LENGTH = 1024;

/**
 * A compiled Mercure topic selector: whether a topic matches it. By the Mercure spec, "Topic Selectors":
 * `*` matches every topic; a selector matches the identical string; a selector that is a valid URI
 * Template (RFC 6570) matches every topic the template matches (`{instance}/availability_request` matches
 * `ins_…/availability_request`). Anything else matches nothing but itself — an unclosed `{` included.
 */
export type TopicSelector = (topic: string) => boolean;

/** Compiles one selector once, so that matching an event's topic parses nothing. */
export function compileTopicSelector(selector: string): TopicSelector {
  if (selector === '*') return () => true;
  if (!selector.includes('{')) return (topic) => topic === selector;
  const matcher = new UriTemplateMatcher();
  try {
    matcher.add(selector);
  } catch {
    // Not a valid URI Template: the spec's step 3 does not apply, only the identical string matches.
    return (topic) => topic === selector;
  }
  return (topic) => topic === selector || matcher.match(topic) !== null;
}

/** Whether `topic` matches at least one of `selectors`. */
export function matchesAny(selectors: readonly TopicSelector[], topic: string): boolean {
  return selectors.some((selector) => selector(topic));
}

/**
 * Whether a selector can match topics other than itself (`*` or a URI Template), so that a token claiming
 * it cannot be narrowed to the instances its text names.
 */
export function isPatternSelector(selector: string): boolean {
  return selector === '*' || selector.includes('{');
}

/**
 * The compiled `topic` selectors of a subscription URL.
 *
 * @throws {AppError} `VALIDATION` for none, more than {@link MAX_TOPICS}, or one longer than
 *   {@link MAX_TOPIC_LENGTH} characters.
 */
export function topicSelectors(url: URL): TopicSelector[] {
  const topics = url.searchParams.getAll('topic');
  if (topics.length === 0 || topics.length > MAX_TOPICS) {
    throw new AppError(
      'VALIDATION',
      `Give 1 to ${MAX_TOPICS} topic selectors, such as <instance_id>/availability_request.`,
      [{ path: '/topic', message: `between 1 and ${MAX_TOPICS} topic parameters are required` }],
    );
  }
  const tooLong = topics.findIndex((topic) => topic.length > MAX_TOPIC_LENGTH);
  if (tooLong >= 0) {
    throw new AppError('VALIDATION', 'A topic selector is too long.', [
      { path: `/topic/${tooLong}`, message: `at most ${MAX_TOPIC_LENGTH} characters` },
    ]);
  }
  return topics.map(compileTopicSelector);
}

/** One instance's topic of one kind (`<instance_id>/<kind>`), as a subscription covers it. */
export interface Topic {
  topic: string;
  instanceId: string;
  kind: EventStreamTopicKind;
}

/**
 * The topics both a `topic` selector and a selector of a token's `mercure.subscribe` claim match. A claim
 * naming a topic covers only that topic (an instance's request topic does not open its order topic); a claim
 * that is a pattern (`*`, a URI template — the service issues none, but a token signed with its key may
 * carry one) covers the topics of `allInstances()`, the instances that exist when the subscription starts.
 */
export async function coveredTopics(
  selectors: readonly TopicSelector[],
  claims: readonly string[],
  allInstances: () => Promise<string[]>,
): Promise<Topic[]> {
  const claimSelectors = claims.map(compileTopicSelector);
  const candidates = claims.some(isPatternSelector)
    ? (await allInstances()).flatMap((instanceId) =>
        eventStreamTopicKinds.map((kind) => ({ instanceId, kind })),
      )
    : claims.map(parseEventStreamTopic).filter((topic) => topic !== null);
  const byTopic = new Map(
    candidates.map((candidate) => {
      const topic = eventStreamTopic(candidate.instanceId, candidate.kind);
      return [topic, { topic, ...candidate }];
    }),
  );
  return [...byTopic.values()].filter(
    ({ topic }) => matchesAny(selectors, topic) && matchesAny(claimSelectors, topic),
  );
}
