"""kmeans_studio.SpectralClustering: the engine's spectral clustering through k-means
representatives (kms::spectral_cluster, `kmeans-cli spectral`; docs/spectral.md).

k-means reduces the n points to R representatives, spectral clustering runs on the
representatives (Gaussian similarity, kNN or full graph, symmetric normalised
Laplacian, LAPACK's eigensolver), every point takes its representative's label.
"""
import numbers
from types import SimpleNamespace

import numpy as np

from . import _engine
from ._estimator import BaseEstimator, ClusterMixin, _engine_call, _fit_args
from ._sweep import _data

_REP_WEIGHTS = ("size", "none")


class SpectralClustering(ClusterMixin, BaseEstimator):
    """Spectral clustering of k-means representatives, with scikit-learn's estimator API.

    Parameters
    ----------
    n_clusters : int or 'auto', default='auto'
        k_c; 'auto' picks k in 2..20 by the largest eigengap ratio (`kmeans-cli spectral --k auto`).
    n_representatives : int or None, default=None
        R, the k-means representatives (2 <= R <= n; None: min(n, 1000)).
    n_neighbors : int, default=10
        The similarity graph: each representative's M nearest, symmetrised (0: the full graph).
    sigma : float or None, default=None
        Gaussian width (None: the median distance of a representative to its M-th nearest).
    final_n_init : int, default=10
        Restarts of the k-means on the spectral embedding.
    rep_weights : {'size', 'none'}, default='size'
        Whether the embedding's k-means weighs each representative by its points.
    solver, backend, init, n_init, max_iter, tol, random_state, n_threads, precision :
        The representatives' k-means, as KMeans (solver 'auto': the engine's rule for k = R;
        init a method name).

    Attributes
    ----------
    labels_ : (n,) int32
    n_clusters_ : int, k_c used (chosen when n_clusters='auto')
    eigenvalues_ : the smallest eigenvalues of the Laplacian, ascending (at least 20 when R allows)
    eigengap_, eigengap_ratio_ : lambda_{k+1} - lambda_k and lambda_{k+1} / lambda_k
    representatives_ : (R, n_features) the representatives (the k-means centroids)
    representative_of_ : (n,) each point's representative
    representative_labels_ : (R,) each representative's cluster
    representative_sizes_ : (R,) points per representative
    embedding_ : (R, k_c) the row-normalised spectral embedding
    sigma_, sigma_rule_, graph_, n_neighbors_ : the similarity graph used
    eigensolver_, eigensolver_note_ : the eigensolver that ran, and why it is not the back end's
    representatives_solver_, representatives_inertia_, representatives_iterations_, final_inertia_
    times_ : dict of the phase times in ms, named as `kmeans-cli spectral --report json`
        (time_representatives_ms, time_similarity_ms, time_eigensolver_ms, time_final_kmeans_ms,
        time_labelling_ms, time_total_ms)
    """

    def __init__(self, n_clusters="auto", *, n_representatives=None, n_neighbors=10, sigma=None, final_n_init=10,
                 rep_weights="size", solver="auto", backend="omp", init="k-means++", n_init=1, max_iter=300,
                 tol=1e-4, random_state=None, n_threads=None, precision=None):
        self.n_clusters = n_clusters
        self.n_representatives = n_representatives
        self.n_neighbors = n_neighbors
        self.sigma = sigma
        self.final_n_init = final_n_init
        self.rep_weights = rep_weights
        self.solver = solver
        self.backend = backend
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_threads = n_threads
        self.precision = precision

    def _spectral_args(self, n_samples):
        def whole(name, value, low):
            if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
                raise ValueError(f"The '{name}' parameter of SpectralClustering must be an int in the range "
                                 f"[{low}, inf). Got {value!r} instead.")
            return int(value)

        if isinstance(self.n_clusters, str):
            if self.n_clusters != "auto":
                raise ValueError("The 'n_clusters' parameter of SpectralClustering must be an int in the range "
                                 f"[1, inf) or 'auto'. Got {self.n_clusters!r} instead.")
            args = ["--k", "auto"]
        else:
            args = ["--k", str(whole("n_clusters", self.n_clusters, 1))]
        if self.n_representatives is not None:
            r = whole("n_representatives", self.n_representatives, 2)
            if r > n_samples:
                raise ValueError(f"n_representatives={r} must be <= n_samples={n_samples}.")
            args += ["--representatives", str(r)]
        args += ["--neighbours", str(whole("n_neighbors", self.n_neighbors, 0))]
        if self.sigma is not None:
            if (not isinstance(self.sigma, numbers.Real) or isinstance(self.sigma, bool) or not np.isfinite(self.sigma)
                    or not self.sigma > 0):
                raise ValueError("The 'sigma' parameter of SpectralClustering must be None or a positive finite "
                                 f"float. Got {self.sigma!r} instead.")
            args += ["--sigma", repr(float(self.sigma))]
        args += ["--final-n-init", str(whole("final_n_init", self.final_n_init, 1))]
        if self.rep_weights not in _REP_WEIGHTS:
            raise ValueError(f"The 'rep_weights' parameter of SpectralClustering must be a str among "
                             f"{set(_REP_WEIGHTS)}. Got {self.rep_weights!r} instead.")
        args += ["--rep-weights", self.rep_weights]
        return args

    def fit(self, X, y=None):
        """Cluster X (array-like, n_samples x n_features; read in place when C-contiguous float64); returns self."""
        X = _data(X, self)
        spectral_args = self._spectral_args(X.shape[0])
        if not isinstance(self.init, str):
            raise ValueError("The 'init' parameter of SpectralClustering must be a str among "
                             f"{{'k-means++', 'random', 'greedy-k-means++', 'maximin'}}. Got {self.init!r} instead.")
        params = SimpleNamespace(n_clusters=1, solver=self.solver, backend=self.backend, init=self.init,
                                 n_init=self.n_init, max_iter=self.max_iter, tol=self.tol,
                                 random_state=self.random_state, n_threads=self.n_threads, precision=self.precision)
        fit_args, _ = _fit_args(params, X, X.shape[0], "SpectralClustering")
        k_at = fit_args.index("--k")
        del fit_args[k_at:k_at + 2]  # the representatives' k is R
        self.n_features_in_ = X.shape[1]
        r = _engine_call(_engine.spectral, np.ascontiguousarray(X, dtype=np.float64), spectral_args + fit_args)
        self.labels_ = r["labels"]
        self.n_clusters_ = int(r["k"])
        self.eigenvalues_ = r["eigenvalues"]
        self.eigengap_ = float(r["eigengap"])
        self.eigengap_ratio_ = float(r["eigengap_ratio"])
        self.eigensolver_ = r["eigensolver"]
        self.eigensolver_note_ = r["eigensolver_note"]
        self.representatives_ = r["representative_centroids"].astype(X.dtype, copy=False)
        self.representative_of_ = r["representative_of"]
        self.representative_labels_ = r["representative_labels"]
        self.representative_sizes_ = r["representative_sizes"]
        self.representatives_solver_ = r["representatives_solver"]
        self.representatives_iterations_ = int(r["representatives_iterations"])
        self.representatives_inertia_ = float(r["representatives_inertia"])
        self.n_neighbors_ = int(r["neighbours"])
        self.graph_ = r["graph"]
        self.sigma_ = float(r["sigma"])
        self.sigma_rule_ = r["sigma_rule"]
        self.embedding_ = r["embedding"]
        self.final_inertia_ = float(r["final_inertia"])
        self.times_ = dict(r["times"])
        return self

    def fit_predict(self, X, y=None):
        return self.fit(X).labels_


__all__ = ["SpectralClustering"]
