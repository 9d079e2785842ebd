"""kmeans-studio's engine from Python: a scikit-learn-compatible KMeans.

    from kmeans_studio import KMeans
    km = KMeans(n_clusters=8, solver="hamerly", random_state=0).fit(X, sample_weight=w)
    km.labels_, km.cluster_centers_, km.inertia_, km.history_

    kmeans_studio.sweep(X, (2, 12))             # inertia and scores per k, elbow, best k
    kmeans_studio.SpectralClustering().fit(X)   # spectral clustering of k-means representatives
    xy, projection = kmeans_studio.geo_project(lat, lon)   # degrees -> km, and back

Exact and deterministic (the same bits for any thread count), float32 and
float64, every solver of the engine (Lloyd, Elkan, Hamerly, Yinyang, Exponion:
kmeans_studio._engine.algorithms()) on the CPU (seq, omp) and on CUDA, per-iteration
statistics, sample weights. kmeans_studio.scores has the quality scores.
"""
from . import _engine, scores
from ._estimator import KMeans, k_means, kmeans_plusplus
from ._geo import EARTH_RADIUS_KM, GeoProjection, geo_project, geo_unproject
from ._spectral import SpectralClustering
from ._sweep import SweepResult, sweep

__all__ = ["KMeans", "k_means", "kmeans_plusplus", "SpectralClustering", "sweep", "SweepResult", "geo_project", "geo_unproject", "GeoProjection",
           "EARTH_RADIUS_KM", "scores", "backends"]
__version__ = "0.1.0"


def backends():
    """{name: (available, reason)} for every back end of the engine."""
    return _engine.backends()
