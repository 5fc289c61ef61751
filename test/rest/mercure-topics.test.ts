import { describe, expect, it } from 'vitest';
import { compileTopicSelector, isPatternSelector, matchesAny } from '../../src/rest/mercure-topics.js';

const topic = 'ins_01jz8k2v5m3q4r6s7t8v9w0xyz/availability_request';

describe('Mercure topic selectors (spec, "Topic Selectors")', () => {
  it.each([
    { selector: '*', matches: [topic, 'anything at all', ''], misses: [] },
    { selector: topic, matches: [topic], misses: [`${topic}/x`, 'ins_other/availability_request'] },
    {
      selector: '{instance}/availability_request',
      matches: [topic, '{instance}/availability_request'],
      misses: ['ins_a/quotes', 'a/b/availability_request', 'availability_request'],
    },
    {
      selector: 'ins_01jz8k2v5m3q4r6s7t8v9w0xyz/{kind}',
      matches: [topic],
      misses: ['ins_other/availability_request'],
    },
    { selector: '{+anything}', matches: [topic, 'a/b/c'], misses: [] },
    {
      selector: 'ins_{unclosed/availability_request',
      matches: ['ins_{unclosed/availability_request'],
      misses: [topic],
    },
  ])(
    'when the selector is $selector, then it matches exactly what the spec says',
    ({ selector, matches, misses }) => {
      const matcher = compileTopicSelector(selector);

      expect(matches.map(matcher)).toEqual(matches.map(() => true));
      expect(misses.map(matcher)).toEqual(misses.map(() => false));
    },
  );

  it('when any of several selectors matches, then the topic matches', () => {
    const selectors = ['ins_other/availability_request', '{instance}/quotes'].map(compileTopicSelector);

    expect(matchesAny(selectors, topic)).toBe(false);
    expect(matchesAny([...selectors, compileTopicSelector('{i}/availability_request')], topic)).toBe(true);
    expect(matchesAny([], topic)).toBe(false);
  });

  it('when a selector is * or a URI template, then it is a pattern; an exact topic is not', () => {
    expect(['*', '{i}/availability_request', topic].map(isPatternSelector)).toEqual([true, true, false]);
  });
});
