"""kmeans_studio.sweep: the engine's k-sweep (kms::sweep, `kmeans-cli sweep`).

One fit per k of a range, each scored (silhouette, Calinski-Harabasz,
Davies-Bouldin), the elbow of the inertia curve (kneedle) and the best k of each
score; with hierarchy=True Rombaut's hierarchy (the largest k first, each smaller
level started from the level above with its closest centroids merged). The fits
are KMeans's: level k equals KMeans(n_clusters=k, ...) with the same parameters
(and `kmeans-cli sweep --empty farthest` with the same seed). docs/sweep.md.
"""
import numbers
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import List, Optional

import numpy as np

from . import _engine
from ._estimator import _check_weights, _engine_call, _fit_args

_SCORE_MODES = ("auto", "exact", "sampled", "none")


def _data(X, owner):
    """X as a C-contiguous float64 array (the engine's sweep and spectral chain read float64 in place)."""
    try:
        from sklearn.utils import check_array
    except ImportError:  # pragma: no cover - the package also works without scikit-learn
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"Expected 2D array, got {X.ndim}D array instead")
        if X.size == 0:
            raise ValueError(f"Found array with shape {X.shape}; {owner} needs at least one sample and one feature.")
        X = np.ascontiguousarray(X, dtype=np.float64)
        if not np.isfinite(X).all():
            raise ValueError("Input X contains NaN or infinity.")
        return X
    X = check_array(X, dtype=[np.float64, np.float32], order="C", estimator=owner)
    return X


def _k_range_text(k_range, step):
    """'FIRST:LAST:STEP' from a (first, last[, step]) pair or triple, a range, or the CLI's text."""
    if isinstance(k_range, str):
        if step != 1:
            raise ValueError("give the step inside k_range ('2:20:2') or as step=, not both")
        return k_range
    if isinstance(k_range, range):
        if len(k_range) == 0 or k_range.step < 1:
            raise ValueError(f"k_range {k_range!r} holds no increasing values of k")
        if step != 1:
            raise ValueError("a range carries its own step: leave step=1")
        return f"{k_range.start}:{k_range[-1]}:{k_range.step}"
    values = tuple(k_range) if isinstance(k_range, (tuple, list)) else None
    if values is None or len(values) not in (2, 3):
        raise ValueError(f"k_range must be (first, last), (first, last, step), a range or 'FIRST:LAST[:STEP]'; "
                         f"got {k_range!r}")
    if len(values) == 3:
        if step != 1:
            raise ValueError("give the step inside k_range or as step=, not both")
        values, step = values[:2], values[2]
    for name, value in (("first k", values[0]), ("last k", values[1]), ("step", step)):
        if not isinstance(value, numbers.Integral) or isinstance(value, bool):
            raise ValueError(f"k_range: the {name} must be an int; got {value!r}")
        if value < 0:
            raise ValueError(f"k_range: the {name} must be positive; got {value}")
    return f"{int(values[0])}:{int(values[1])}:{int(step)}"


@dataclass
class SweepResult:
    """What `kmeans-cli sweep --report json` prints, as arrays (one entry per k, increasing).

    Per k: `k`, `inertia`, `iterations`, `stop_reason`, `seed` (of the kept restart),
    `start` (the initialisation, or 'merged' for a hierarchy level), `fit_ms`, `scores_ms`,
    `silhouette`, `calinski_harabasz`, `davies_bouldin` (NaN where not computed or
    undefined), `silhouette_standard_error` (NaN unless sampled), `silhouette_sample_size`
    (the points scored), `solver` (what ran, e.g. 'hamerly/omp/f64'). The suggestions:
    `elbow_k` (with `elbow_reason`), `best_silhouette_k`, `best_calinski_harabasz_k`,
    `best_davies_bouldin_k` (None when there is none). `labels`: n x levels, column j the
    labels of k[j] (the CLI's --levels-out); `cluster_centers[j]` its k[j] x d centroids.
    """
    k: np.ndarray
    inertia: np.ndarray
    iterations: np.ndarray
    stop_reason: List[str]
    seed: np.ndarray
    start: List[str]
    fit_ms: np.ndarray
    scores_ms: np.ndarray
    silhouette: np.ndarray
    silhouette_standard_error: np.ndarray
    silhouette_sample_size: np.ndarray
    calinski_harabasz: np.ndarray
    davies_bouldin: np.ndarray
    solver: List[str]
    labels: np.ndarray
    cluster_centers: List[np.ndarray]
    initial_centers: List[np.ndarray]
    elbow_k: Optional[int]
    elbow_reason: str
    best_silhouette_k: Optional[int]
    best_calinski_harabasz_k: Optional[int]
    best_davies_bouldin_k: Optional[int]
    k_range: str
    hierarchy: bool
    total_time_ms: float = field(default=0.0)

    @property
    def time_ms(self):
        """Wall time per k: fit and scores."""
        return self.fit_ms + self.scores_ms

    def level(self, k):
        """Index of k in the arrays (ValueError when k was not swept)."""
        where = np.flatnonzero(self.k == k)
        if where.size == 0:
            raise ValueError(f"k = {k} is not among the swept values {self.k.tolist()}")
        return int(where[0])


def sweep(X, k_range=(2, 12), step=1, *, hierarchy=False, scores="auto", sample_weight=None, solver="auto",
          backend="omp", init="k-means++", n_init=1, max_iter=300, tol=1e-4, random_state=None, n_threads=None,
          precision=None):
    """Fit every k of a range and score it (`kmeans-cli sweep`; docs/sweep.md).

    Parameters
    ----------
    X : array-like (n_samples, n_features); float32 data is widened to a float64 copy
        (the sweep reads float64), the run's precision still follows X (as KMeans).
    k_range : (first, last) inclusive, (first, last, step), a range, or 'FIRST:LAST[:STEP]'.
    step : int, the step between values of k (with a (first, last) pair).
    hierarchy : bool, Rombaut's hierarchy: the largest k is fitted (n_init restarts), each
        smaller k starts from the level above with its closest centroids merged.
    scores : 'auto' (exact silhouette up to 20 000 points, else sampled on 20 000), 'exact',
        'sampled', 'sampled:N', an int N (= 'sampled:N'), or 'none' (no silhouette;
        Calinski-Harabasz and Davies-Bouldin are always computed).
    sample_weight : per-sample weights of the fits (the scores are unweighted).
    solver, backend, init, n_init, max_iter, tol, random_state, n_threads, precision :
        as KMeans. init may be an array only with hierarchy=True (the largest k's centres).

    Returns
    -------
    SweepResult
    """
    X = _data(X, "sweep")
    text = _k_range_text(k_range, step)
    if not isinstance(hierarchy, (bool, np.bool_)):
        raise ValueError(f"hierarchy must be True or False; got {hierarchy!r}")
    if isinstance(scores, numbers.Integral) and not isinstance(scores, bool):
        scores = f"sampled:{int(scores)}"
    if not isinstance(scores, str) or not (scores in _SCORE_MODES or scores.startswith("sampled:")):
        raise ValueError(f"scores must be 'auto', 'exact', 'sampled', 'sampled:N', an int N or 'none'; got {scores!r}")
    weights = _check_weights(sample_weight, X)
    parts = text.split(":")
    last = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 1
    if last > X.shape[0]:
        raise ValueError(f"k_range asks for k = {last} but X has {X.shape[0]} samples")
    if not isinstance(init, str) and not hierarchy:
        raise ValueError("an init array holds the centres of one k: a sweep over several k takes 'k-means++', "
                         "'random', 'greedy-k-means++' or 'maximin' (with hierarchy=True, an array of the largest "
                         "k's centres)")
    params = SimpleNamespace(n_clusters=max(last, 1), solver=solver, backend=backend, init=init, n_init=n_init,
                             max_iter=max_iter, tol=tol, random_state=random_state, n_threads=n_threads,
                             precision=precision)
    args, centres = _fit_args(params, X, X.shape[0], "sweep", stacklevel=3)
    k_at = args.index("--k")
    del args[k_at:k_at + 2]  # the range gives k
    X64 = np.ascontiguousarray(X, dtype=np.float64)
    result = _engine_call(_engine.sweep, X64, args, text, hierarchy=bool(hierarchy), scores=scores, sample_weight=weights,
                           init=centres)
    levels = result["levels"]

    def column(key, dtype=np.float64):
        return np.array([level[key] for level in levels], dtype=dtype)

    labels = (np.stack([level["labels"] for level in levels], axis=1) if levels
              else np.empty((X.shape[0], 0), dtype=np.int32))
    fit_ms, scores_ms = column("fit_ms"), column("scores_ms")
    return SweepResult(
        k=column("k", np.int64), inertia=column("inertia"), iterations=column("iterations", np.int64),
        stop_reason=[level["stop_reason"] for level in levels], seed=column("seed", np.uint64),
        start=[level["start"] for level in levels], fit_ms=fit_ms, scores_ms=scores_ms,
        silhouette=column("silhouette"), silhouette_standard_error=column("silhouette_standard_error"),
        silhouette_sample_size=column("silhouette_sample_size", np.int64),
        calinski_harabasz=column("calinski_harabasz"), davies_bouldin=column("davies_bouldin"),
        solver=[level["solver"] for level in levels], labels=np.ascontiguousarray(labels),
        cluster_centers=[level["centroids"].astype(X.dtype, copy=False) for level in levels],
        initial_centers=[level["initial_centroids"] for level in levels],
        elbow_k=result["elbow_k"], elbow_reason=result["elbow_reason"],
        best_silhouette_k=result["best_silhouette_k"], best_calinski_harabasz_k=result["best_calinski_harabasz_k"],
        best_davies_bouldin_k=result["best_davies_bouldin_k"], k_range=result["k_range"],
        hierarchy=bool(result["hierarchy"]), total_time_ms=float(fit_ms.sum() + scores_ms.sum()))


__all__ = ["sweep", "SweepResult"]
