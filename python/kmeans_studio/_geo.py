"""Latitude/longitude in degrees, clustered in kilometres (kms::GeoProjection,
`kmeans-cli run --geo`; docs/geographic.md).

    xy, projection = kmeans_studio.geo_project(lat, lon)        # km; the engine's frame rule
    km = KMeans(8, random_state=0).fit(xy)                     # inertia in km^2
    centres = projection.to_degrees(km.cluster_centers_)       # (8, 2): latitude, longitude

The frame: equirectangular around the data's centre (x east, y north, km) when the
east-west scale error stays within 5 %, the data span at most 30 degrees of longitude and
do not cross the antimeridian; otherwise 3-D (R times the unit vector, km). Values
outside [-90, 90] / [-180, 180], NaN and infinities are refused with the engine's message.
"""
from dataclasses import dataclass

import numpy as np

from . import _engine

_FRAMES = ("auto", "equirectangular", "sphere")


def _degrees(lat, lon):
    """An n x 2 float64 array (latitude, longitude) from one n x 2 array, or two 1-D arrays."""
    if lon is None:
        degrees = np.asarray(lat, dtype=np.float64)
        if degrees.ndim != 2 or degrees.shape[1] != 2:
            raise ValueError(f"expected an (n, 2) array of latitude, longitude in degrees (or lat and lon as two "
                             f"1-D arrays); got shape {degrees.shape}")
    else:
        lat = np.asarray(lat, dtype=np.float64)
        lon = np.asarray(lon, dtype=np.float64)
        if lat.ndim != 1 or lon.ndim != 1 or lat.shape != lon.shape:
            raise ValueError(f"lat and lon must be 1-D arrays of the same length; got shapes {lat.shape} and "
                             f"{lon.shape}")
        degrees = np.column_stack([lat, lon])
    if degrees.shape[0] == 0:
        raise ValueError("no points: geographic data needs at least one latitude, longitude pair")
    return np.ascontiguousarray(degrees)


@dataclass(frozen=True)
class GeoProjection:
    """The frame data in degrees were projected in: `frame` 'equirectangular' (centre
    `lat0`, `lon0` in degrees; 2 columns, x east and y north in km) or 'sphere' (3 columns,
    km, Earth-centred); `reason` says why the rule chose it."""
    frame: str
    lat0: float
    lon0: float
    reason: str = ""

    @property
    def dimensions(self):
        return 3 if self.frame == "sphere" else 2

    def project(self, lat, lon=None):
        """More points in degrees (an (n, 2) array, or lat and lon) in this frame, in km."""
        return _engine.geo_transform(_degrees(lat, lon), self.frame, float(self.lat0), float(self.lon0))

    def to_degrees(self, projected):
        """Rows in km (e.g. cluster centres) back to (latitude, longitude) in degrees, longitude in
        [-180, 180); a 3-D row is put back on the sphere first."""
        projected = np.asarray(projected, dtype=np.float64)
        if projected.ndim != 2 or projected.shape[1] != self.dimensions:
            raise ValueError(f"expected an array of shape (m, {self.dimensions}) in the {self.frame} frame; "
                             f"got {projected.shape}")
        return _engine.geo_to_degrees(np.ascontiguousarray(projected), self.frame, float(self.lat0),
                                      float(self.lon0))

    def describe(self):
        if self.frame == "sphere":
            return "3-D unit vectors x R (km, Earth-centred)"
        return f"equirectangular around {self.lat0:.4f}, {self.lon0:.4f} (km)"


def geo_project(lat, lon=None, *, frame="auto"):
    """Latitude/longitude in degrees to km: returns (projected, GeoProjection).

    lat : (n, 2) array of latitude, longitude, or a 1-D array of latitudes with `lon`.
    frame : 'auto' (the engine's rule, `--geo-projection auto`), 'equirectangular' or 'sphere'.
    """
    if frame not in _FRAMES:
        raise ValueError(f"frame must be one of {_FRAMES}; got {frame!r}")
    result = _engine.geo_project(_degrees(lat, lon), frame)
    projection = GeoProjection(result["frame"], float(result["lat0"]), float(result["lon0"]), result["reason"])
    return result["projected"], projection


def geo_unproject(projected, projection):
    """Rows in km back to degrees: projection.to_degrees(projected)."""
    if not isinstance(projection, GeoProjection):
        raise TypeError(f"projection must be the GeoProjection geo_project returned; got {type(projection).__name__}")
    return projection.to_degrees(projected)


EARTH_RADIUS_KM = _engine.EARTH_RADIUS_KM

__all__ = ["geo_project", "geo_unproject", "GeoProjection", "EARTH_RADIUS_KM"]
