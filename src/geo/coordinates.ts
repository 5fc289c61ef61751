/** A point on Earth in WGS 84 decimal degrees (latitude −90…90, longitude −180…180). */
export interface Coordinates {
  readonly latitude: number;
  readonly longitude: number;
}

/** Mean Earth radius (IUGG), in kilometres. */
export const EARTH_RADIUS_KM = 6371.0088;

const toRadians = (degrees: number): number => (degrees * Math.PI) / 180;

/**
 * Great-circle distance between two points by the haversine formula, in
 * kilometres (spherical Earth: within about 0.5 % of the ellipsoidal distance,
 * ample for choosing the nearest city).
 *
 * @returns the distance in km; NaN when any coordinate is NaN
 */
export function distanceKm(a: Coordinates, b: Coordinates): number {
  const dLat = toRadians(b.latitude - a.latitude);
  const dLon = toRadians(b.longitude - a.longitude);
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(toRadians(a.latitude)) * Math.cos(toRadians(b.latitude)) * Math.sin(dLon / 2) ** 2;
  // min() keeps rounding from pushing asin's argument past 1 for antipodal points.
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}
