import { UriTemplateMatcher } from 'uri-template-matcher';

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
