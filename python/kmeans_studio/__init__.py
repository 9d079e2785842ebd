"""kmeans-studio's engine from Python: a scikit-learn-compatible KMeans.

    from kmeans_studio import KMeans
    km = KMeans(n_clusters=8, solver="hamerly", random_state=0).fit(X, sample_weight=w)
    km.labels_, km.cluster_centers_, km.inertia_, km.history_

Exact and deterministic (the same bits for any thread count), float32 and
float64, Lloyd/Elkan/Hamerly on the CPU (seq, omp) and on CUDA, per-iteration
statistics, sample weights. kmeans_studio.scores has the quality scores.
"""
from . import _engine, scores
from ._estimator import KMeans

__all__ = ["KMeans", "scores", "backends"]
__version__ = "0.1.0"


def backends():
    """{name: (available, reason)} for every back end of the engine."""
    return _engine.backends()
