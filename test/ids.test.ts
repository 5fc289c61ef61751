import { TypeID } from 'typeid-js';
import { describe, expect, it } from 'vitest';
import { idKind, idPrefixes, newId } from '../src/ids.js';

describe('newId', () => {
  it('when ids of every kind are made, then each is a valid TypeID with its prefix and a version 7 UUID', () => {
    for (const kind of Object.keys(idPrefixes) as (keyof typeof idPrefixes)[]) {
      const id = newId(kind);
      const parsed = TypeID.fromString(id);

      expect(parsed.getType()).toBe(idPrefixes[kind]);
      expect(parsed.toUUID()).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(idKind(id)).toBe(kind);
    }
  });

  it('when many ids are made in a burst, then they are distinct and sort in the order they were made', () => {
    const ids = Array.from({ length: 10_000 }, () => newId('availabilityRequest'));

    expect(new Set(ids).size).toBe(10_000);
    expect([...ids].sort()).toEqual(ids);
  });
});
