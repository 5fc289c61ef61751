/**
 * Letters that Unicode decomposition leaves whole but that people routinely type
 * in ASCII (`Ærøskøbing` as `Aeroskobing`, `Łódź` as `Lodz`, `Straße` as `Strasse`).
 */
const ASCII_SPELLINGS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  ø: 'o',
  œ: 'oe',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
};

const PLAIN_WORDS = /^[a-z0-9]+(?: [a-z0-9]+)*$/;

/**
 * The comparison key of a place name: lowercase, without diacritics, with
 * punctuation and runs of spaces reduced to single spaces.
 *
 * `"'s-Hertogenbosch"` → `"s hertogenbosch"`, `"Zürich"` → `"zurich"`,
 * `"  Den   Haag "` → `"den haag"`, `"Łódź"` → `"lodz"`.
 *
 * @param name - a place name as written by a user or in GeoNames
 * @returns the key; `""` when the name has no letters or digits
 */
export function placeNameKey(name: string): string {
  // Lowercasing first lets NFKD split e.g. İ's dot off as a mark too.
  const lower = name.toLowerCase();
  // Most GeoNames names are plain ASCII words; skipping the Unicode passes for
  // them halves the time to index all cities.
  if (PLAIN_WORDS.test(lower)) {
    return lower;
  }
  return lower
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[ßæøœłđðþı]/g, (letter) => ASCII_SPELLINGS[letter] ?? letter)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
