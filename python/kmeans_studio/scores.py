"""Clustering quality scores by the engine (core/src/scores), as scikit-learn computes them.

float32 and float64 C-contiguous data is read in place; other data is converted
once to float64. `backend='cuda'` computes the exact silhouette on the GPU.
"""
import numpy as np

from . import _engine


def _data(X):
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"Expected 2D array, got {X.ndim}D array instead")
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    X = np.ascontiguousarray(X)
    if not np.isfinite(X).all():
        raise ValueError("Input X contains NaN or infinity.")
    return X


def _labels(labels, n=None):
    labels = np.asarray(labels)
    if labels.ndim != 1:
        raise ValueError("labels must be a 1-D array")
    if n is not None and labels.shape[0] != n:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: [{n}, {labels.shape[0]}]")
    if labels.size and (labels.min() < np.iinfo(np.int32).min or labels.max() > np.iinfo(np.int32).max):
        raise ValueError("labels must fit in 32-bit integers")
    return np.ascontiguousarray(labels, dtype=np.int32)


def silhouette(X, labels, *, sample_size=None, random_state=0, backend="omp", n_threads=None, return_values=False):
    """Mean silhouette coefficient (sklearn.metrics.silhouette_score).

    sample_size=None: exact over all points (on the GPU with backend='cuda');
    otherwise the exact silhouette of `sample_size` points drawn with seed
    `random_state`. return_values=True also returns the per-point values.
    """
    X = _data(X)
    labels = _labels(labels, X.shape[0])
    if sample_size is not None and (int(sample_size) < 2):
        raise ValueError(f"sample_size must be at least 2; got {sample_size}")
    args = ["--backend", backend, "--threads", str(n_threads or 0)]
    if backend.startswith("cuda"):
        X = np.ascontiguousarray(X, dtype=np.float64)
    result = _engine.silhouette(X, labels, None if sample_size is None else int(sample_size), int(random_state), args)
    return (result["score"], result["values"]) if return_values else result["score"]


def calinski_harabasz(X, labels):
    """sklearn.metrics.calinski_harabasz_score."""
    X = _data(X)
    return _engine.calinski_harabasz(X, _labels(labels, X.shape[0]))


def davies_bouldin(X, labels):
    """sklearn.metrics.davies_bouldin_score."""
    X = _data(X)
    return _engine.davies_bouldin(X, _labels(labels, X.shape[0]))


def adjusted_rand(labels_true, labels_pred):
    """sklearn.metrics.adjusted_rand_score."""
    truth = _labels(labels_true)
    return _engine.adjusted_rand_index(truth, _labels(labels_pred, truth.shape[0]))


def normalized_mutual_info(labels_true, labels_pred):
    """sklearn.metrics.normalized_mutual_info_score (arithmetic mean)."""
    truth = _labels(labels_true)
    return _engine.normalized_mutual_info(truth, _labels(labels_pred, truth.shape[0]))


def centroid_index(centroids, true_centroids):
    """Fränti's centroid index: 0 when every true cluster is found."""
    c = np.ascontiguousarray(centroids, dtype=np.float64)
    t = np.ascontiguousarray(true_centroids, dtype=np.float64)
    if c.ndim != 2 or t.ndim != 2 or c.shape[1] != t.shape[1]:
        raise ValueError(f"centroids {c.shape} and true_centroids {t.shape} must be 2-D with the same number of "
                         "features")
    if not (np.isfinite(c).all() and np.isfinite(t).all()):
        raise ValueError("centroids and true_centroids must not contain NaN or infinity")
    return _engine.centroid_index(c, t)


__all__ = ["silhouette", "calinski_harabasz", "davies_bouldin", "adjusted_rand", "normalized_mutual_info",
           "centroid_index"]
