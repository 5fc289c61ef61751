import { readFileSync } from 'node:fs';
import { isValidIBAN } from 'ibantools';
import { repositoryRoot } from './process.js';

/*
 * Realistic Dutch data for the benchmark's seed and request bodies: addresses inside the demo catalogue's
 * coverage areas (data/catalogs/nl-demo.json) and varied company names. Deterministic for a given seed,
 * so every run of a scenario sends the same bodies.
 */

/** A small deterministic PRNG (mulberry32): the same seed gives the same sequence. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  pick<T>(values: readonly T[]): T;
  /** True with probability `p`. */
  chance(p: number): boolean;
}

/** A {@link Random} seeded with `seed` (any 32-bit integer). */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: <T>(values: readonly T[]) => values[Math.floor(next() * values.length)] as T,
    chance: (p) => next() < p,
  };
}

/** A coverage area of the demo catalogue: postal-code prefix ranges and the cities it names. */
export interface CatalogArea {
  key: string;
  name: string;
  postal_code_ranges: [string, string][];
  cities: string[];
}

/** The coverage areas of `data/catalogs/nl-demo.json`, in catalogue order. */
export function demoCatalogAreas(): CatalogArea[] {
  if (!areasCache) {
    const path = `${repositoryRoot}data/catalogs/nl-demo.json`;
    areasCache = (JSON.parse(readFileSync(path, 'utf8')) as { areas: CatalogArea[] }).areas;
  }
  return areasCache;
}

let areasCache: CatalogArea[] | null = null;

/** A Dutch address as the contract's address input names it (postal code written `1016 XA`). */
export interface DutchAddress {
  street: string;
  houseNumber: string;
  houseNumberAddition: string;
  /** With the space, as people write it: `1016 XA`. */
  postalCode: string;
  city: string;
  /** Key of the catalogue area the postal code lies in. */
  areaKey: string;
}

/** Names separated by `|`, line breaks allowed around them (keeps long word lists compact). */
function list(names: string): string[] {
  return names
    .split('|')
    .map((name) => name.trim())
    .filter(Boolean);
}

const streetsByCity: Record<string, string[]> = {
  Amsterdam: list(`
    Lijnbaansgracht|Keizersgracht|Herengracht|Prinsengracht|Damrak|Rokin|Kalverstraat|Gustav Mahlerlaan|
    Strawinskylaan|Claude Debussylaan|Overtoom|Van Baerlestraat|Hoogoorddreef|Bijlmerdreef|
    Johan Huizingalaan|Buikslotermeerplein|Klaprozenweg
  `),
  Rotterdam: list(`
    Coolsingel|Weena|Blaak|Lijnbaan|Wilhelminakade|Kop van Zuid|Boompjes|Westblaak|Marconistraat|
    Vasteland|Botlekweg|Europaweg|Waalhaven Zuidzijde
  `),
  'Den Haag': list(`
    Lange Voorhout|Prinsegracht|Laan van Nieuw Oost-Indië|Koningin Julianaplein|Binckhorstlaan|Fruitweg|
    Parkstraat|Spui|Anna van Buerenplein|Wassenaarseweg
  `),
  Utrecht: list(`
    Oudegracht|Catharijnesingel|Stationsplein|Croeselaan|Vaartsche Rijn|Biltstraat|Papendorpseweg|
    Europalaan|Ganzenmarkt|Maliebaan
  `),
  Eindhoven: list(`
    Stratumseind|Vestdijk|Kennedyplein|High Tech Campus|Flight Forum|Emmasingel|Torenallee|Kastanjelaan|
    Professor Dorgelolaan
  `),
  Groningen: list(`
    Herestraat|Grote Markt|Oude Ebbingestraat|Paterswoldseweg|Zernikelaan|Osloweg|Verlengde Hereweg|
    Emmaplein
  `),
  Zwolle: list('Diezerstraat|Melkmarkt|Stationsweg|Grote Kerkplein|Dokter van Deenweg|Oosterlaan'),
};

const commonStreets = list(`
  Kerkstraat|Dorpsstraat|Stationsweg|Schoolstraat|Molenweg|Julianalaan|Beatrixlaan|Wilhelminastraat|
  Industrieweg|Nijverheidsweg|Havenstraat|Marktplein|Kanaalweg|Parallelweg|Ambachtsweg
`);

const additions = ['A', 'B', 'H', '1', '2', 'BIS', 'C', '3'];
// Dutch postcodes never use F, I, O, Q, U or Y, nor the combinations SA, SD and SS.
const postcodeLetters = 'ABCDEGHJKLMNPRSTVWXZ';

function postcodeSuffix(random: Random): string {
  for (;;) {
    const suffix = random.pick([...postcodeLetters]) + random.pick([...postcodeLetters]);
    if (suffix !== 'SA' && suffix !== 'SD' && suffix !== 'SS') return suffix;
  }
}

/**
 * A random address inside a random coverage area: a postal code within one of the area's prefix ranges,
 * the area's first city, a street of that city (or a common one) and a house number, 20 % with an addition.
 */
export function dutchAddress(random: Random, areas: readonly CatalogArea[]): DutchAddress {
  const area = random.pick(areas);
  const [from, to] = random.pick(area.postal_code_ranges);
  const prefix = String(random.int(Number(from), Number(to)));
  const city = area.cities[0] ?? 'Amsterdam';
  const streets = streetsByCity[city] ?? commonStreets;
  return {
    street: random.chance(0.85) ? random.pick(streets) : random.pick(commonStreets),
    houseNumber: String(random.chance(0.7) ? random.int(1, 120) : random.int(121, 400)),
    houseNumberAddition: random.chance(0.2) ? random.pick(additions) : '',
    postalCode: `${prefix} ${postcodeSuffix(random)}`,
    city,
    areaKey: area.key,
  };
}

const surnames = list(`
  de Jong|Jansen|de Vries|van den Berg|van Dijk|Bakker|Janssen|Visser|Smit|Meijer|de Boer|Mulder|
  de Groot|Bos|Vos|Peters|Hendriks|van Leeuwen|Dekker|Brouwer|de Wit|Dijkstra|Smits|de Graaf|
  van der Meer|van der Linden|Kok|Jacobs|de Haan|Vermeulen|van den Heuvel|van der Veen|van den Broek|
  de Bruijn|de Bruin|van der Heijden|Schouten|van Beek|Willems|van Vliet|van de Ven|Hoekstra|Maas|
  Verhoeven|Koster|van Dam|van der Wal|Prins|Blom|Huisman|Postma|Kuipers|Wouters
`);

const trades = list(`
  Bouw|Bouwbedrijf|Installatietechniek|Transport|Logistiek|Advocaten|Accountants|Tandartsenpraktijk|
  Makelaardij|Schildersbedrijf|Loodgietersbedrijf|Autobedrijf|ICT|Consultancy|Notarissen|Architecten|
  Fysiotherapie|Kinderopvang|Hoveniers|Drukkerij|Elektrotechniek|Vastgoed|Metaalbewerking|Verhuur|
  Administratiekantoor|Beveiliging|Schoonmaak|Catering|Dakdekkers|Interieurbouw|Groothandel|Kozijnen|
  Opleidingen
`);

const brandWords = list(`
  Noord|Zuid|Delta|Polder|Holland|Amstel|Maas|Rijn|IJssel|Oranje|Tulp|Molen|Dijk|Haven|Kust|Veluwe|
  Randstad|Kempen|Duin|Eiland|Horizon|Linde
`);

const englishWords = list('Solutions|Group|Systems|Networks|Services|Partners|Digital|Labs|Works|Tech');

const legalForms = ['B.V.', 'B.V.', 'B.V.', 'B.V.', 'V.O.F.', 'N.V.', 'Holding B.V.', '', ''];

function capitalise(value: string): string {
  return value.charAt(0).toUpperCase() + value.slice(1);
}

/**
 * A company name in one of several Dutch styles ("Jansen Installatietechniek B.V.", "Bouwbedrijf Van Dijk",
 * "Amstel Logistiek V.O.F.", "Delta Networks"), optionally numbered to keep names varied.
 */
export function companyName(random: Random): string {
  const surname = capitalise(random.pick(surnames));
  const form = random.pick(legalForms);
  const withForm = (name: string) => (form === '' ? name : `${name} ${form}`);
  switch (random.int(0, 4)) {
    case 0:
      return withForm(`${surname} ${random.pick(trades)}`);
    case 1:
      return random.chance(0.2) ? `${surname} & Zn.` : `${random.pick(trades)} ${surname}`;
    case 2:
      return withForm(`${random.pick(brandWords)} ${random.pick(trades)}`);
    case 3:
      return withForm(
        `${random.pick(brandWords)}${random.pick(brandWords).toLowerCase()} ${random.pick(englishWords)}`,
      );
    default:
      return withForm(`${surname} & ${capitalise(random.pick(surnames))}`);
  }
}

/** A web-host-like slug of a name: `Jansen Bouw B.V.` → `jansenbouw`. */
export function slug(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\b(b\.?v\.?|n\.?v\.?|v\.?o\.?f\.?|holding|zn\.?)\b/g, '')
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 40);
}

/** Provinces, as a customer's region. */
export const dutchRegions = list(`
  Noord-Holland|Zuid-Holland|Utrecht|Noord-Brabant|Gelderland|Overijssel|Groningen
`);

/** A Dutch IBAN (`NL91ABNA0417164300` shape) that passes `isValidIBAN`. */
export function dutchIban(random: Random): string {
  const bank = random.pick(['ABNA', 'INGB', 'RABO', 'SNSB', 'TRIO', 'BUNQ', 'KNAB']);
  for (;;) {
    const account = String(random.int(0, 9_999_999_999)).padStart(10, '0');
    // ISO 13616 check digits: letters as 10–35, country code and 00 moved to the end, 98 − (n mod 97).
    const digits = [...`${bank}${account}NL00`]
      .map((c) => (/\d/.test(c) ? c : String(c.charCodeAt(0) - 55)))
      .join('');
    const check = String(98n - (BigInt(digits) % 97n)).padStart(2, '0');
    const iban = `NL${check}${bank}${account}`;
    if (isValidIBAN(iban)) return iban;
  }
}

/** A Dutch VAT number in the valid format `NL` + 9 digits + `B` + 2 digits. */
export function dutchVatNumber(random: Random): string {
  return `NL${String(random.int(100_000_000, 999_999_999))}B${String(random.int(1, 99)).padStart(2, '0')}`;
}
