"""kmeans_studio.KMeans: scikit-learn's estimator API over the engine's fit layer.

The engine (kmeans_studio._engine) takes the CLI's fit options; this file checks
and converts the inputs as scikit-learn does and builds those options.

Data: a C-contiguous float32 or float64 array is read in place (no copy). float32
data runs in float32 precision and float64 data in float64 unless `precision` says
otherwise; `_data_address_` is where the engine's solver read the points: X's own
buffer when its dtype is the run's precision, else the engine's one converted copy
(float64 data run in float32, or the reverse; and on backend='cuda', whose solver
copies the data to the device anyway, float32 host data is widened once on the
host). Anything else (other dtypes, Fortran order, slices, lists) is converted once
to a C-contiguous float64 copy (scikit-learn's check_array), as scikit-learn does.

CUDA arrays (objects with `__cuda_array_interface__` or DLPack on a CUDA device:
CuPy arrays, PyTorch CUDA tensors), C-contiguous float32 or float64, are clustered
on the device with backend='cuda' (or 'cuda-global'/'cuda-shared') without a copy
through the host: the solver reads them in place when their dtype is the run's
precision (`_data_address_` is then their device address), else converts them once
on the device. The results (labels_, cluster_centers_) are host NumPy arrays;
sample weights are host values (a CUDA array of weights is copied to the host).
"""
import numbers
import os
import re
import warnings

import numpy as np

from . import _engine

try:  # SciPy's sparse matrices (CSR, CSC, ...) when SciPy is there
    import scipy.sparse as _sparse
except ImportError:  # pragma: no cover
    _sparse = None

try:  # scikit-learn's base classes and checks when it is there (Debian: python3-sklearn)
    from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, ClusterMixin, TransformerMixin
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.utils import check_random_state
    from sklearn.utils.validation import _check_sample_weight, check_is_fitted

    try:  # scikit-learn >= 1.6 moved the estimator's _validate_data here
        from sklearn.utils.validation import validate_data as _validate_data
    except ImportError:
        def _validate_data(estimator, X, **check_params):
            return estimator._validate_data(X, **check_params)

    _HAVE_SKLEARN = True
except ImportError:  # pragma: no cover - the package also works without scikit-learn
    _HAVE_SKLEARN = False
    BaseEstimator = ClusterMixin = TransformerMixin = object

    class ClassNamePrefixFeaturesOutMixin:  # get_feature_names_out without scikit-learn
        def get_feature_names_out(self, input_features=None):
            prefix = type(self).__name__.lower()
            return np.asarray([f"{prefix}{i}" for i in range(self._n_features_out)], dtype=object)

    class ConvergenceWarning(UserWarning):
        """scikit-learn's ConvergenceWarning, where scikit-learn is missing."""

_SOLVERS = (*_engine.algorithms(), "auto")  # the engine's registered solvers
_ALGORITHMS = ("lloyd", "elkan", "auto", "full")  # scikit-learn's; 'auto' and 'full' are its deprecated names of 'lloyd'


def _is_path(X):
    return isinstance(X, (str, bytes, os.PathLike))


def _refuse_large_memmap(estimator, X):
    """A memory-mapped array (np.load(..., mmap_mode='r')) is read in place where the engine can (C-contiguous
    float32/float64 in its own precision): its pages come from the file as the passes reach them. Where fit would
    copy it (another dtype or order: to float64; the other precision: the engine's converted copy) and the copy
    exceeds the memory limit, it is refused, naming the file to pass instead (read a block at a time)."""
    if not isinstance(X, np.memmap):
        return
    p = estimator.precision
    key = np.dtype(p).name if isinstance(p, type) else p
    precision = _PRECISIONS.get(key) if p is not None else ("f32" if X.dtype == np.float32 else "f64")
    widened = X.dtype not in (np.float32, np.float64) or not X.flags.c_contiguous
    copy = X.size * ((8 + (4 if precision == "f32" else 0)) if widened else
                     8 if X.dtype == np.float32 and precision == "f64" else
                     4 if X.dtype == np.float64 and precision == "f32" else 0)
    if copy == 0:
        return
    limit = estimator.memory_limit
    limit = (_engine.available_memory() if limit is None else
             _engine.parse_byte_size(limit) if isinstance(limit, str) else int(limit))
    if limit and copy > limit:
        raise ValueError(f"X is a memory-mapped array of {X.nbytes} bytes ({X.dtype}"
                         f"{'' if X.flags.c_contiguous else ', not C-contiguous'}) that fit would copy "
                         f"({copy} bytes{' in float64' if widened else ' in ' + precision}), more than the memory "
                         f"limit ({limit} bytes): pass the file's path instead, fit({str(X.filename)!r}), to read it "
                         "a block at a time")


def _refuse_path(X, what):
    if _is_path(X):
        raise ValueError(f"{what} takes an array; a file ({os.fspath(X)!r}) is clustered by fit(path), whose "
                         "labels_ are its rows' clusters (fit_predict(path) returns them)")


def _issparse(X):
    return _sparse is not None and _sparse.issparse(X)
_INITS = {"k-means++": "kmeans++", "random": "random", "greedy-k-means++": "greedy-kmeans++", "maximin": "maximin",
          "k-means||": "kmeans-parallel"}
_PRECISIONS = {"f32": "f32", "float32": "f32", "f64": "f64", "float64": "f64"}


def _backend_names():
    return tuple(_engine.backends())


_DLPACK_CUDA = (2, 13)  # DLPack device types kDLCUDA, kDLCUDAManaged


def _is_cuda_array(X):
    """Whether X lives in CUDA memory (CuPy, PyTorch CUDA tensors, Numba device arrays, ...)."""
    if isinstance(X, np.ndarray):
        return False
    try:
        if hasattr(X, "__cuda_array_interface__"):
            return True
    except Exception:  # e.g. PyTorch refuses the interface for tensors that require grad
        return True
    device = getattr(X, "__dlpack_device__", None)
    if device is None:
        return False
    try:
        return int(device()[0]) in _DLPACK_CUDA
    except Exception:
        return False


def _dtype_of(X):
    """X's dtype as NumPy's (PyTorch spells it torch.float32)."""
    try:
        return np.dtype(str(X.dtype).replace("torch.", ""))
    except TypeError:
        return np.dtype(object)


def _to_host(values):
    """A CUDA array's values on the host (sample weights only: n numbers)."""
    if hasattr(values, "get"):  # CuPy
        return values.get()
    if hasattr(values, "detach"):  # PyTorch
        return values.detach().cpu().numpy()
    return np.asarray(values)


class KMeans(ClassNamePrefixFeaturesOutMixin, ClusterMixin, TransformerMixin, BaseEstimator):
    """K-means clustering by kmeans-studio's engine, with scikit-learn's API.

    scikit-learn's `KMeans` parameters, methods and attributes (a drop-in for
    `sklearn.cluster.KMeans`: its own test suite passes with only the import changed,
    bar the differences listed in docs/python.md), plus the engine's.

    Parameters
    ----------
    n_clusters : int, default=8
        The number of clusters k.
    init : {'k-means++', 'random', 'greedy-k-means++', 'maximin', 'k-means||'}, array of shape \
(n_clusters, n_features) or callable(X, n_clusters, random_state), default='k-means++'
        How the first centres are chosen ('greedy-k-means++' is scikit-learn's
        k-means++ with local trials; 'k-means||' is Bahmani et al.'s k-means‖:
        5 rounds of 2·k candidates, reduced by weighted k-means++).
    n_init : int or 'auto', default=1
        Restarts with seeds s, s+1, ...; the lowest inertia is kept. 'auto': 10 with
        init='random', else 1 (scikit-learn's rule). scikit-learn 1.2's default is 10.
    max_iter : int, default=300
        Iterations per restart.
    tol : float, default=1e-4
        scikit-learn's tolerance: the fit stops when the centres' total squared shift
        is at most tol × the mean feature variance; 0: until the labels settle.
    verbose : int, default=0
        >0: print scikit-learn's lines ("Initialization complete", "Iteration i,
        inertia x.", "Converged at iteration i: ...") while the fit runs.
    random_state : None, int or RandomState, default=None
        An int is the engine's seed (as `kmeans-cli --seed`); None or a RandomState
        draws one.
    copy_x : bool, default=True
        Accepted for scikit-learn's API; X is never modified either way (the engine
        does not centre the data).
    algorithm : None or {'lloyd', 'elkan', 'auto', 'full'}, default=None
        scikit-learn's name for `solver`: 'lloyd' and 'elkan' run those solvers;
        'auto' and 'full' run 'lloyd' with scikit-learn 1.2's FutureWarning; 'elkan'
        with n_clusters=1 runs 'lloyd' with its RuntimeWarning. None: `solver` decides.
        Given with a different `solver` than 'auto': ValueError.
    solver : {'lloyd', 'elkan', 'hamerly', 'yinyang', 'exponion', 'auto'}, default='auto'
        The algorithm; all give the same labels and centres, bit for bit ('auto': the
        engine's rule for the data's n, d, k and the back end, docs/solvers.md;
        `solver_` and `solver_choice_` say what ran and why). Sparse X: 'lloyd' or
        'elkan' ('auto' runs 'lloyd').
    backend : {'omp', 'seq', 'cuda', 'cuda-global', 'cuda-shared'}, default='omp'
        Where it runs; `kmeans_studio.backends()` says which are available here.
    n_threads : int or None, default=None
        OpenMP threads (None: all cores). Results do not depend on it.
    precision : None, 'f32' or 'f64', default=None
        None follows X's dtype (float32 data: f32, anything else: f64). Sparse X is
        computed in double for both dtypes (float32 values widen exactly).
    devices : None, 'all' or sequence of int, default=None
        CUDA back ends: split the rows over these GPUs, stepped together (as
        `kmeans-cli --devices`); the centres are bitwise those of one GPU with
        `devices=[N]` (docs/scale-out.md). None: one GPU.
    callback : callable(stats) or None, default=None
        Called after every iteration with that iteration's statistics (a dict, as
        in `history_`); returning False stops the fit there.
    init_bounds : {'auto', 'on', 'off'} or bool, default='auto'
        k-means++ and greedy k-means++ (and k-means||'s reduction): skip distances with
        a tree of boxes over the points (the GPU: Raff 2021's triangle inequality); the
        same centres bit for bit either way,
        only the time and `init_stats_`'s distance counts differ ('auto': where measured
        faster; as `kmeans-cli --init-bounds`).
    oversampling_factor : float, default=2.0
        init='k-means||': each round samples oversampling_factor * n_clusters candidates
        expected (`--oversampling`).
    init_rounds : int, default=5
        init='k-means||': sampling rounds (`--init-rounds`).
    out_of_core : {'auto', 'on', 'off'} or bool, default='auto'
        fit(path) only: read the file a block at a time on every pass instead of
        loading it ('auto': when its points do not fit in `memory_limit`), as
        `kmeans-cli run --out-of-core`; the same fit either way, bit for bit.
    memory_limit : None, int or str, default=None
        fit(path): the memory this process may use, in bytes or as '512M', '8G'
        (None: what is available), as `kmeans-cli run --memory-limit`.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        The centres, in X's dtype (float64 for integer data).
    labels_ : ndarray of shape (n_samples,), int32
        Each sample's cluster (its nearest centre; ties to the lowest index).
    inertia_ : float
        Σ w·squared distance of each sample to its centre.
    n_iter_ : int
        Iterations of the kept restart.
    n_features_in_ : int
        Features seen by fit.
    feature_names_in_ : ndarray of str
        X's column names, when X has them (a pandas DataFrame).
    history_ : list of dict
        One record per iteration of every restart: 'restart', 'iteration', 'inertia',
        'labels_changed', shifts, phase times and work counters (docs/python.md).
    restarts_ : list of dict
        Each restart's 'restart', 'seed', 'iterations', 'stop_reason', 'inertia', 'time_ms'.
    init_stats_ : dict
        What the kept restart's seeding cost: 'method', 'bounds' (whether the bounds
        skipped distances), 'time_ms', 'point_centroid_distances',
        'centroid_centroid_distances', and for 'k-means||' 'candidates' and 'rounds'
        (empty for given initial centers).
    stop_reason_ : str
        Why the kept restart stopped: 'no-label-change', 'tolerance', 'max-iterations'
        or 'cancelled'.
    solver_ : str
        What ran, e.g. 'hamerly/omp/f64'.
    solver_choice_ : str
        Why solver='auto' chose it ('' for a named solver).
    out_of_core_ : str or None
        fit(path): the out-of-core plan's line (the file read in blocks, the buffers, the
        memory limit); None where the file was loaded, and for arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from kmeans_studio import KMeans
    >>> X = np.array([[1, 2], [1, 4], [1, 0], [10, 2], [10, 4], [10, 0]])
    >>> km = KMeans(n_clusters=2, n_init=1, random_state=0).fit(X)
    >>> sorted(km.cluster_centers_.tolist())
    [[1.0, 2.0], [10.0, 2.0]]
    >>> km.predict([[0, 0], [12, 3]]).tolist() == [km.labels_[0], km.labels_[3]]
    True
    """

    def __init__(self, n_clusters=8, *, init="k-means++", n_init=1, max_iter=300, tol=1e-4, verbose=0,
                 random_state=None, copy_x=True, algorithm=None, solver="auto", backend="omp", n_threads=None,
                 precision=None, devices=None, callback=None, init_bounds="auto", oversampling_factor=2.0,
                 init_rounds=5, out_of_core="auto", memory_limit=None):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose
        self.random_state = random_state
        self.copy_x = copy_x
        self.algorithm = algorithm
        self.solver = solver
        self.backend = backend
        self.n_threads = n_threads
        self.precision = precision
        self.devices = devices
        self.callback = callback
        self.init_bounds = init_bounds
        self.oversampling_factor = oversampling_factor
        self.init_rounds = init_rounds
        self.out_of_core = out_of_core
        self.memory_limit = memory_limit

    # ------------------------------------------------------------ checks
    def _check_X(self, X, reset):
        if _issparse(X):
            return _check_sparse(self, X, reset)
        if _HAVE_SKLEARN:
            return _validate_data(self, X, accept_sparse=False, dtype=[np.float64, np.float32], order="C",
                                  reset=reset)
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        X = np.ascontiguousarray(X)
        if X.ndim != 2:
            raise ValueError(f"Expected 2D array, got {X.ndim}D array instead")
        if not np.isfinite(X).all():
            raise ValueError("Input X contains NaN or infinity.")
        if reset:
            self.n_features_in_ = X.shape[1]
        elif X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but KMeans is expecting {self.n_features_in_} "
                             "features as input.")
        return X

    def _check_weights(self, sample_weight, X):
        return _check_weights(sample_weight, X)

    def _engine_args(self, X, n_samples):
        return _fit_args(self, X, n_samples, "KMeans")

    def _run_args(self):
        """The options of assign: the fitted run's back end and precision."""
        return ["--k", "1", "--backend", self.backend, "--precision", self._precision,
                "--threads", str(self.n_threads or 0)]

    # ------------------------------------------------------------ fitting
    def fit(self, X, y=None, sample_weight=None):
        """Compute the k-means clustering.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features), or a path
            The samples: a NumPy array (C-contiguous float32/float64 is read in place),
            anything NumPy converts, a SciPy sparse matrix (CSR read in place; CSC and
            others converted to CSR once), or a CUDA array with backend='cuda'. Or the
            path (str or os.PathLike) of a file `kmeans-cli run --input` reads (.npy,
            .fvecs, .bvecs, .ivecs, .fbin, .u8bin, .i8bin, .ibin, CSV/TSV text): read a
            block at a time where `out_of_core` says (data larger than memory), else
            loaded; computed in f64 unless `precision` says, and an empty cluster keeps
            its centre (the CLI's default). `out_of_core_` then holds the plan's line (None:
            loaded). A memory-mapped array that fit would copy (not C-contiguous
            float32/float64 in its own precision) beyond the memory limit is refused: pass its path.
        y : Ignored
            Not used, present for scikit-learn's API.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights (None: all 1).

        Returns
        -------
        self : KMeans
            The fitted estimator.
        """
        if _is_cuda_array(X):
            return self._fit_device(X, sample_weight)
        if _is_path(X):
            return self._fit_file(os.fspath(X), sample_weight)
        _refuse_large_memmap(self, X)
        X = self._check_X(X, reset=True)
        weights = self._check_weights(sample_weight, X)
        args, init = self._engine_args(X, X.shape[0])
        callback = _verbose_callback(self, X, self.callback) if self.verbose else self.callback
        if _issparse(X):
            result = _engine_call(_engine.fit_sparse, *_csr_parts(X), args, sample_weight=weights, init=init,
                                  callback=callback, compute_inertia=True)
        else:  # _check_X made X C-contiguous float32 or float64: the engine reads it in place.
            try:
                result = _engine_call(_engine.fit, X, args, sample_weight=weights, init=init, callback=callback,
                                      compute_inertia=True)
            except ValueError as error:
                # float32 data beyond float's distance range: computed in f64 (as scikit-learn computes it),
                # unless precision='f32' was asked for
                if self.precision is not None or "too large for f32" not in str(error):
                    raise
                args[args.index("--precision") + 1] = "f64"
                result = _engine_call(_engine.fit, X, args, sample_weight=weights, init=init, callback=callback,
                                      compute_inertia=True)
        return self._store(result, args, X.dtype)

    # ------------------------------------------------------------ files
    def _out_of_core_args(self):
        """out_of_core and memory_limit as the engine's (the CLI's) --out-of-core and --memory-limit."""
        when = {True: "on", False: "off"}.get(self.out_of_core, self.out_of_core)
        if when not in ("auto", "on", "off"):
            raise ValueError(f"The 'out_of_core' parameter of KMeans must be 'auto', 'on', 'off' or a bool. "
                             f"Got {self.out_of_core!r} instead.")
        args = ["--out-of-core", when]
        limit = self.memory_limit
        if limit is not None:
            if isinstance(limit, bool) or not isinstance(limit, (numbers.Integral, str)) or (
                    isinstance(limit, numbers.Integral) and limit < 1):
                raise ValueError(f"The 'memory_limit' parameter of KMeans must be None, a number of bytes >= 1 or a "
                                 f"size such as '512M' or '8G'. Got {limit!r} instead.")
            args += ["--memory-limit", str(limit)]
        return args

    def _fit_file(self, path, sample_weight):
        """A file the CLI reads, fitted by path: out of core where the CLI's plan says so, else loaded (the same
        fit either way)."""
        if callable(self.init):
            raise ValueError("a callable init takes X in memory; with a path give init as a string or an array")
        n_features = _engine_call(_engine.file_columns, path)
        weights = None
        if sample_weight is not None:  # its length is checked against the file's rows by the engine
            weights = _check_weights(sample_weight, np.empty((np.size(sample_weight), 0)))
        # n_clusters <= n_samples is the engine's to check (the rows are known once the file is read)
        args, init = self._engine_args(np.empty((0, n_features)), self.n_clusters)
        # out of core an empty cluster keeps its centre (farthest relocation reads every row at once):
        # the CLI's default, for the loaded road too, so that both give the same fit
        args[args.index("--empty") + 1] = "keep"
        args += self._out_of_core_args()
        callback = self.callback  # (verbose's lines scale tol by X's variance: an array's)
        result = _engine_call(_engine.fit_file, path, args, sample_weight=weights, init=init, callback=callback,
                              compute_inertia=True)
        self.n_features_in_ = n_features
        return self._store(result, args, np.float64)

    # ------------------------------------------------------------ CUDA arrays
    def _check_device_X(self, X, reset):
        if not (isinstance(self.backend, str) and self.backend.startswith("cuda")):
            raise ValueError(f"CUDA arrays are clustered on the device: use backend='cuda' (or 'cuda-global', "
                             f"'cuda-shared'); got backend={self.backend!r}")
        shape = tuple(X.shape)
        if len(shape) != 2:
            raise ValueError(f"Expected 2D array, got {len(shape)}D array instead")
        dtype = _dtype_of(X)
        if dtype not in (np.float32, np.float64):
            raise ValueError(f"CUDA arrays must be float32 or float64; got {dtype} (convert on the device, e.g. "
                             "x.astype(cupy.float64) or x.double())")
        if shape[0] < 1 or shape[1] < 1:
            raise ValueError(f"Found array with shape {shape}; at least one sample and one feature are required.")
        if reset:
            self.n_features_in_ = shape[1]
        elif shape[1] != self.n_features_in_:
            raise ValueError(f"X has {shape[1]} features, but KMeans is expecting {self.n_features_in_} "
                             "features as input.")
        return shape, dtype

    def _device_weights(self, sample_weight, n):
        if sample_weight is None:
            return None
        if _is_cuda_array(sample_weight):
            sample_weight = _to_host(sample_weight)
        return self._check_weights(sample_weight, np.empty((n, 0)))

    def _fit_device(self, X, sample_weight):
        shape, dtype = self._check_device_X(X, reset=True)
        weights = self._device_weights(sample_weight, shape[0])
        args, init = self._engine_args(X, shape[0])
        try:
            result = _engine_call(_engine.fit_device, X, args, sample_weight=weights, init=init,
                                  callback=self.callback, compute_inertia=True)
        except (RuntimeError, ValueError) as error:
            if "NaN or infinite" in str(error):
                raise ValueError("Input X contains NaN or infinity.") from error
            raise
        return self._store(result, args, dtype)

    def _store(self, result, args, dtype):
        if len(result["labels"]) == 0:
            raise RuntimeError("the fit ended before its first iteration")
        self._precision = args[args.index("--precision") + 1]
        self._data_address_ = result["data_address"]
        self.cluster_centers_ = result["centroids"].astype(dtype, copy=False)
        self.labels_ = result["labels"]
        self.inertia_ = float(result["inertia"])
        self.n_iter_ = int(result["n_iter"])
        self.history_ = result["history"]
        self.restarts_ = result["restarts"]
        self.init_stats_ = result["init"]
        self.stop_reason_ = result["stop_reason"]
        self.solver_ = result["solver"]
        self.solver_choice_ = result["solver_choice"]
        self.out_of_core_ = result.get("out_of_core")  # fit(path)'s plan; None for arrays
        self._fit_dtype = dtype
        self._n_features_out = self.cluster_centers_.shape[0]
        distinct = int(np.count_nonzero(np.bincount(self.labels_, minlength=self.n_clusters)))  # O(n), no sort
        if distinct < self.n_clusters:
            warnings.warn(f"Number of distinct clusters ({distinct}) found smaller than n_clusters "
                          f"({self.n_clusters}). Possibly due to duplicate points in X.", ConvergenceWarning,
                          stacklevel=3)
        return self

    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit, then return each sample's cluster (`labels_`).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            As for `fit`.
        y : Ignored
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        labels : ndarray of shape (n_samples,), int32
        """
        return self.fit(X, sample_weight=sample_weight).labels_

    def fit_transform(self, X, y=None, sample_weight=None):
        """Fit, then return the distances of each sample to every centre (`transform`).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : Ignored
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        distances : ndarray of shape (n_samples, n_clusters)
        """
        if _is_cuda_array(X):
            raise ValueError("transform takes host arrays; for a CUDA array use fit and predict")
        _refuse_path(X, "fit_transform")
        return self.fit(X, sample_weight=sample_weight)._transform(self._check_X(X, reset=False))

    def _check_fitted_X(self, X):
        if _HAVE_SKLEARN:
            check_is_fitted(self)
        elif not hasattr(self, "cluster_centers_"):
            raise AttributeError("This KMeans instance is not fitted yet; call fit first.")
        return self._check_X(X, reset=False)

    def _assign(self, X, sample_weight=None):
        centers = np.ascontiguousarray(self.cluster_centers_, dtype=np.float64)
        if _issparse(X):
            labels, inertia = _engine_call(_engine.assign_sparse, *_csr_parts(X), centers, self._run_args(),
                                           sample_weight)
            return labels, inertia
        labels, inertia, _ = _engine_call(_engine.assign, X, centers, self._run_args(), sample_weight)
        return labels, inertia

    def _assign_device(self, X, sample_weight=None):
        if _HAVE_SKLEARN:
            check_is_fitted(self)
        shape, _ = self._check_device_X(X, reset=False)
        weights = self._device_weights(sample_weight, shape[0])
        centers = np.ascontiguousarray(self.cluster_centers_, dtype=np.float64)
        labels, inertia, address = _engine_call(_engine.assign_device, X, centers, self._run_args(), weights)
        self._predict_address_ = address
        return labels, inertia

    def predict(self, X, sample_weight=None):
        """The closest cluster of each sample (the engine's distance, ties to the lowest index).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            New samples (a CUDA array is assigned on the device).
        sample_weight : Ignored
            Accepted for scikit-learn's API (the labels do not depend on weights).

        Returns
        -------
        labels : ndarray of shape (n_samples,), int32
        """
        if _is_cuda_array(X):
            return self._assign_device(X)[0]
        _refuse_path(X, "predict")
        X = self._check_fitted_X(X)
        return self._assign(X)[0]

    def transform(self, X):
        """Euclidean distances of each sample to every cluster centre.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        distances : ndarray of shape (n_samples, n_clusters), in X's float dtype
        """
        if _is_cuda_array(X):
            raise ValueError("transform takes host arrays; for a CUDA array use predict, or pass a host copy")
        _refuse_path(X, "transform")
        return self._transform(self._check_fitted_X(X))

    def _transform(self, X):
        if _issparse(X):
            centers = self.cluster_centers_.astype(np.float64)
            xx = np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
            cc = np.einsum("ij,ij->i", centers, centers)
            out = np.empty((X.shape[0], centers.shape[0]), dtype=X.dtype)
            step = max(1, (1 << 22) // max(1, centers.shape[0]))  # bounded memory; Ctrl-C between blocks
            for start in range(0, X.shape[0], step):
                dot = np.asarray(X[start:start + step] @ centers.T)
                sq = xx[start:start + step, None] - 2.0 * dot + cc[None, :]
                out[start:start + step] = np.sqrt(np.maximum(sq, 0.0))
                _check_finite_distances(out[start:start + step], np.float64)
            return out
        centers = self.cluster_centers_.astype(X.dtype, copy=False)
        out = np.empty((X.shape[0], centers.shape[0]), dtype=X.dtype)
        step = max(1, (1 << 22) // max(1, centers.size))  # bounded temporary memory; Ctrl-C between blocks
        for start in range(0, X.shape[0], step):
            diff = X[start:start + step, None, :] - centers[None, :, :]
            out[start:start + step] = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
            _check_finite_distances(out[start:start + step], X.dtype)
        return out

    def score(self, X, y=None, sample_weight=None):
        """Opposite of the (weighted) inertia of X against the cluster centres.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : Ignored
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        score : float
            −Σ w·squared distance of each sample to its closest centre.
        """
        if _is_cuda_array(X):
            return -float(self._assign_device(X, sample_weight)[1])
        X = self._check_fitted_X(X)
        weights = self._check_weights(sample_weight, X) if sample_weight is not None else None
        return -float(self._assign(X, weights)[1])

    def _more_tags(self):
        return {
            "_xfail_checks": {
                "check_sample_weights_invariance": "zero sample_weight is not equivalent to removing samples",
            },
        }


def _check_sparse(estimator, X, reset):
    """A sparse X as CSR with float32/float64 values, scikit-learn's checks (finite values, feature count)."""
    if _HAVE_SKLEARN:
        X = _validate_data(estimator, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=reset)
    else:
        X = X.tocsr()
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        if not np.isfinite(X.data).all():
            raise ValueError("Input X contains NaN or infinity.")
        if reset:
            estimator.n_features_in_ = X.shape[1]
        elif X.shape[1] != estimator.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but KMeans is expecting {estimator.n_features_in_} "
                             "features as input.")
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"Found array with shape {X.shape}; at least one sample and one feature are required.")
    if not X.has_canonical_format:  # repeated entries of a row would count twice in ||x||²
        X = X.copy()
        X.sum_duplicates()
    return X


def _csr_parts(X):
    """The engine's CSR arrays: int64 offsets (n + 1 values, a copy where SciPy keeps int32), int32 columns and
    the values, read in place where they already have those types."""
    if X.indices.dtype != np.int32 and X.shape[1] > np.iinfo(np.int32).max:
        raise ValueError(f"sparse X has {X.shape[1]} features; at most {np.iinfo(np.int32).max} are supported")
    return (np.ascontiguousarray(X.indptr, dtype=np.int64), np.ascontiguousarray(X.indices, dtype=np.int32),
            np.ascontiguousarray(X.data), X.shape[0], X.shape[1])


def _mean_variance(X):
    if _issparse(X):
        mean = np.asarray(X.mean(axis=0), dtype=np.float64).ravel()
        mean_sq = np.asarray(X.multiply(X).mean(axis=0), dtype=np.float64).ravel()
        return float(np.mean(mean_sq - mean * mean))
    return float(np.mean(np.var(X, axis=0, dtype=np.float64)))


def _verbose_callback(estimator, X, user_callback):
    """scikit-learn's verbose lines, printed from the engine's per-iteration statistics."""
    tol = float(estimator.tol) * _mean_variance(X) if estimator.tol else 0.0
    max_iter = estimator.max_iter

    def report(stats):
        i = stats["iteration"]
        if i == 1:
            print("Initialization complete")
        print(f"Iteration {i - 1}, inertia {stats['inertia']}.")
        if i > 1 and stats["labels_changed"] == 0:
            print(f"Converged at iteration {i - 1}: strict convergence.")
        elif stats["shift_sq_total"] <= tol:
            print(f"Converged at iteration {i - 1}: center shift {stats['shift_sq_total']} within tolerance {tol}.")
        elif i >= max_iter:
            print(f"Stopped at iteration {i - 1}: max_iter={max_iter} reached.")
        return None if user_callback is None else user_callback(stats)

    return report


_FLAG_WORDS = (("--precision ", "precision="), ("--solver ", "solver="), ("--backend ", "backend="),
               ("--threads ", "n_threads="), ("--init ", "init="), ("--k ", "n_clusters="), ("--n-init ", "n_init="),
               ("--max-iter ", "max_iter="), ("--tol ", "tol="), ("--devices ", "devices="), ("--seed ", "random_state="),
               ("--representatives ", "n_representatives="), ("--neighbours ", "n_neighbors="), ("--sigma ", "sigma="),
               ("--final-n-init ", "final_n_init="), ("--rep-weights ", "rep_weights="), ("--k-range ", "k_range="),
               ("--scores ", "scores="), ("--init-bounds ", "init_bounds="), ("--oversampling ", "oversampling_factor="),
               ("--init-rounds ", "init_rounds="), ("--out-of-core ", "out_of_core="),
               ("--memory-limit ", "memory_limit="))


def _literal(value):
    """A value as Python would write it: numbers bare, words quoted."""
    try:
        float(value)
        return value
    except ValueError:
        return repr(value)


def _python_words(message):
    """The engine's message in Python's words: parameter names for the CLI's flags, numbers short."""
    for flag, name in _FLAG_WORDS:
        message = re.sub(re.escape(flag) + r"([\w.+-]+)", lambda m, n=name: n + _literal(m.group(1)), message)
        message = message.replace(flag.strip(), name.rstrip("="))

    def short(match):
        text = match.group(0)
        try:
            return f"{float(text):.6g}"
        except ValueError:
            return text
    return re.sub(r"[-+]?\d[\d.]{11,}(?:[eE][-+]?\d+)?", short, message)


def _engine_call(function, *args, **kwargs):
    """An engine call whose refusals arrive as ValueError in Python's words (RuntimeError stays for a back end
    that is not available here)."""
    try:
        return function(*args, **kwargs)
    except ValueError as error:
        words = _python_words(str(error))
        if words == str(error):
            raise
        raise ValueError(words) from None
    except RuntimeError as error:
        text = str(error)
        # a refusal of the data (the engine names it X) or of an option (a CLI flag) is the caller's value;
        # anything else (an unavailable back end, a missing LAPACK) stays a RuntimeError
        if not (text.startswith("X:") or re.search(r"(^|\s)--[a-z]", text)):
            raise
        raise ValueError(_python_words(text)) from None


def _check_finite_distances(block, dtype):
    """transform's distances: an overflow is refused (never returned as inf), as predict and score refuse such X."""
    if not np.isfinite(block).all():
        raise ValueError(f"X: distances to the cluster centres overflow {np.dtype(dtype).name}: rescale the data "
                         "(divide it by a power of two)" + (" or pass float64 data" if dtype == np.float32 else ""))


def _check_weights(sample_weight, X):
    """sample_weight checked as scikit-learn does: a C-contiguous float64 array of n values, or None."""
    if sample_weight is None:
        return None
    if _HAVE_SKLEARN:
        w = _check_sample_weight(sample_weight, X, dtype=np.float64)
    else:
        w = np.asarray(sample_weight, dtype=np.float64)
        if w.ndim == 0:
            w = np.full(X.shape[0], float(w))
        if w.shape != (X.shape[0],):
            raise ValueError(f"sample_weight.shape == {w.shape}, expected {(X.shape[0],)}!")
    if not np.isfinite(w).all():
        raise ValueError("sample_weight contains NaN or infinity.")
    if (w < 0).any():
        raise ValueError("Negative values in data passed to `sample_weight`")
    if not w.sum() > 0:
        raise ValueError("sample_weight sums to zero: at least one sample needs a positive weight")
    return np.ascontiguousarray(w)


def _fit_args(params, X, n_samples, owner, stacklevel=4):
    """The engine's fit options (the CLI's words) and the initial centres (an array or None)
    from `params`' n_clusters, solver, backend, init, n_init, max_iter, tol, random_state,
    n_threads and precision, checked with scikit-learn's messages naming `owner`."""
    k = params.n_clusters
    if not isinstance(k, numbers.Integral) or isinstance(k, bool) or k < 1:
        raise ValueError(f"The 'n_clusters' parameter of {owner} must be an int in the range [1, inf). Got {k!r} "
                         "instead.")
    if n_samples < k:
        raise ValueError(f"n_samples={n_samples} should be >= n_clusters={k}.")
    if params.solver not in _SOLVERS:
        raise ValueError(f"The 'solver' parameter of {owner} must be a str among {set(_SOLVERS)}. "
                         f"Got {params.solver!r} instead.")
    solver = params.solver  # 'auto' is resolved by the engine's fit layer
    algorithm = getattr(params, "algorithm", None)  # scikit-learn's name for the solver
    if algorithm is not None:
        if algorithm not in _ALGORITHMS:
            raise ValueError(f"The 'algorithm' parameter of {owner} must be a str among {set(_ALGORITHMS)} or None. "
                             f"Got {algorithm!r} instead.")
        if algorithm in ("auto", "full"):
            warnings.warn(f"algorithm='{algorithm}' is deprecated, it will be removed in 1.3. Using 'lloyd' instead.",
                          FutureWarning, stacklevel=stacklevel)
            algorithm = "lloyd"
        if algorithm == "elkan" and k == 1:
            warnings.warn("algorithm='elkan' doesn't make sense for a single cluster. Using 'lloyd' instead.",
                          RuntimeWarning, stacklevel=stacklevel)
            algorithm = "lloyd"
        if solver not in ("auto", algorithm) and not (solver == "elkan" and k == 1):
            raise ValueError(f"{owner} got solver={params.solver!r} and algorithm={params.algorithm!r}: algorithm is "
                             "scikit-learn's name for solver; give one of them")
        solver = algorithm
    params._algorithm = algorithm if algorithm is not None else solver
    if not isinstance(params.backend, str) or params.backend not in _backend_names() + ("cuda-global", "cuda-shared"):
        raise ValueError(f"The 'backend' parameter of {owner} must be a str among "
                         f"{set(_backend_names() + ('cuda-global', 'cuda-shared'))}. Got {params.backend!r} instead.")
    if not isinstance(params.max_iter, numbers.Integral) or isinstance(params.max_iter, bool) or params.max_iter < 1:
        raise ValueError(f"The 'max_iter' parameter of {owner} must be an int in the range [1, inf). "
                         f"Got {params.max_iter!r} instead.")
    if not isinstance(params.tol, numbers.Real) or isinstance(params.tol, bool) or not params.tol >= 0:
        raise ValueError(f"The 'tol' parameter of {owner} must be a float in the range [0.0, inf). "
                         f"Got {params.tol!r} instead.")
    if params.n_threads is not None and (not isinstance(params.n_threads, numbers.Integral) or params.n_threads < 1):
        raise ValueError(f"The 'n_threads' parameter of {owner} must be None or an int >= 1. "
                         f"Got {params.n_threads!r} instead.")
    if params.precision is None:
        precision = "f32" if _dtype_of(X) == np.float32 else "f64"
    else:
        key = np.dtype(params.precision).name if isinstance(params.precision, type) else params.precision
        if key not in _PRECISIONS:
            raise ValueError(f"The 'precision' parameter of {owner} must be None, 'f32' or 'f64'. "
                             f"Got {params.precision!r} instead.")
        precision = _PRECISIONS[key]
    n_init = params.n_init
    if isinstance(n_init, str) and n_init == "auto":  # scikit-learn's rule: 10 for random starts, else 1
        n_init = 10 if isinstance(params.init, str) and params.init == "random" else 1
    if not isinstance(n_init, numbers.Integral) or isinstance(n_init, bool) or n_init < 1:
        raise ValueError(f"The 'n_init' parameter of {owner} must be an int in the range [1, inf) or 'auto'. "
                         f"Got {params.n_init!r} instead.")
    if params.random_state is None or not isinstance(params.random_state, numbers.Integral):
        seed = int(_random_state(params.random_state).randint(np.iinfo(np.int32).max))
    elif params.random_state < 0:
        raise ValueError(f"random_state must be a non-negative int; got {params.random_state}")
    else:
        seed = int(params.random_state)
    args = ["--k", str(k), "--solver", solver, "--backend", params.backend, "--precision", precision,
            "--max-iter", str(params.max_iter), "--tol", repr(float(params.tol)), "--seed", str(seed),
            "--empty", "farthest",  # scikit-learn relocates empty clusters
            "--threads", str(params.n_threads or 0)]
    devices = getattr(params, "devices", None)
    if devices is not None:
        if devices == "all":
            args += ["--devices", "all"]
        elif (not isinstance(devices, str) and hasattr(devices, "__iter__") and
              len(chosen := list(devices)) > 0 and  # once: a generator would be empty the second time
              all(isinstance(x, numbers.Integral) and not isinstance(x, bool) and x >= 0 for x in chosen)):
            args += ["--devices", ",".join(str(int(x)) for x in chosen)]
        else:
            raise ValueError(f"The 'devices' parameter of {owner} must be None, 'all' or a non-empty sequence of "
                             f"device numbers (ints >= 0). Got {devices!r} instead.")
        if not params.backend.startswith("cuda"):
            raise ValueError(f"The 'devices' parameter of {owner} needs a CUDA back end (backend='cuda'); "
                             f"backend={params.backend!r} has no devices.")
    init = None
    if isinstance(params.init, str):
        if params.init not in _INITS:
            raise ValueError(f"The 'init' parameter of {owner} must be a str among {set(_INITS)}, an array-like "
                             f"or a callable. Got {params.init!r} instead.")
        args += ["--init", _INITS[params.init], "--n-init", str(n_init)]
        bounds = getattr(params, "init_bounds", "auto")
        if bounds not in ("auto", "on", "off", True, False):
            raise ValueError(f"The 'init_bounds' parameter of {owner} must be 'auto', 'on', 'off' or a bool. "
                             f"Got {bounds!r} instead.")
        args += ["--init-bounds", {True: "on", False: "off"}.get(bounds, bounds)]
        if params.init == "k-means||":
            factor, rounds = getattr(params, "oversampling_factor", 2.0), getattr(params, "init_rounds", 5)
            if (not isinstance(factor, numbers.Real) or isinstance(factor, bool) or not np.isfinite(factor) or
                    factor <= 0):
                raise ValueError(f"The 'oversampling_factor' parameter of {owner} must be a float > 0. "
                                 f"Got {factor!r} instead.")
            if not isinstance(rounds, numbers.Integral) or isinstance(rounds, bool) or rounds < 1:
                raise ValueError(f"The 'init_rounds' parameter of {owner} must be an int >= 1. Got {rounds!r} instead.")
            args += ["--oversampling", repr(float(factor)), "--init-rounds", str(int(rounds))]
    else:
        init = params.init(X, k, _random_state(seed)) if callable(params.init) else params.init
        if _issparse(init):
            init = init.toarray()
        init = np.array(init, dtype=np.float64, order="C", ndmin=2)
        if init.shape[0] != k:
            raise ValueError(f"The shape of the initial centers {init.shape} does not match the number of "
                             f"clusters {k}.")
        if init.shape[1] != X.shape[1]:
            raise ValueError(f"The shape of the initial centers {init.shape} does not match the number of "
                             f"features of the data {X.shape[1]}.")
        if not np.isfinite(init).all():
            raise ValueError("The initial centers contain NaN or infinity.")
        if n_init != 1:
            warnings.warn(f"Explicit initial center position passed: performing only one init in {owner} "
                          f"instead of n_init={n_init}.", RuntimeWarning, stacklevel=stacklevel)
        n_init = 1
    params._n_init = n_init
    return args, init


def _random_state(seed):
    if _HAVE_SKLEARN:
        return check_random_state(seed)
    if seed is None or isinstance(seed, numbers.Integral):
        return np.random.RandomState(seed)
    return seed


def k_means(X, n_clusters, *, sample_weight=None, init="k-means++", n_init=1, max_iter=300, verbose=False, tol=1e-4,
            random_state=None, copy_x=True, algorithm="lloyd", return_n_iter=False):
    """scikit-learn's `k_means` function: `KMeans(...).fit(X)` in one call.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
    n_clusters : int
    sample_weight : array-like of shape (n_samples,), default=None
    init, n_init, max_iter, verbose, tol, random_state, copy_x, algorithm
        As for `KMeans` (scikit-learn's names and meanings; n_init's default is 1).
    return_n_iter : bool, default=False
        Also return the number of iterations.

    Returns
    -------
    centroid : ndarray of shape (n_clusters, n_features)
    label : ndarray of shape (n_samples,), int32
    inertia : float
    best_n_iter : int
        Only when return_n_iter is True.
    """
    estimator = KMeans(n_clusters=n_clusters, init=init, n_init=n_init, max_iter=max_iter, verbose=verbose, tol=tol,
                       random_state=random_state, copy_x=copy_x, algorithm=algorithm).fit(X, sample_weight=sample_weight)
    if return_n_iter:
        return estimator.cluster_centers_, estimator.labels_, estimator.inertia_, estimator.n_iter_
    return estimator.cluster_centers_, estimator.labels_, estimator.inertia_


class _SeedingParams:
    """The fit options kmeans_plusplus needs, as an estimator's parameters."""

    def __init__(self, n_clusters, random_state, n_local_trials):
        self.n_clusters = n_clusters
        self.solver = "lloyd"
        self.backend = "omp"
        self.init = "greedy-k-means++"
        self.n_init = 1
        self.max_iter = 1
        self.tol = 0.0
        self.random_state = random_state
        self.n_threads = None
        self.precision = None
        self.devices = None
        self.n_local_trials = n_local_trials


def kmeans_plusplus(X, n_clusters, *, x_squared_norms=None, random_state=None, n_local_trials=None):
    """scikit-learn's `kmeans_plusplus`: k-means++ seeds with local trials, by the engine's seeding.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
    n_clusters : int
    x_squared_norms : array-like of shape (n_samples,), default=None
        Accepted for scikit-learn's API and checked for its length; the engine computes
        the norms it needs itself.
    random_state : None, int or RandomState, default=None
    n_local_trials : int, default=None
        Candidates per round, the best kept (None: 2 + floor(ln k), scikit-learn's).

    Returns
    -------
    centers : ndarray of shape (n_clusters, n_features), in X's float dtype
    indices : ndarray of shape (n_clusters,), int64
        The rows of X chosen as centres.
    """
    sparse_input = _issparse(X)
    if sparse_input:
        X = X.tocsr()
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        if not np.isfinite(X.data).all():
            raise ValueError("Input X contains NaN or infinity.")
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
    else:
        X = np.asarray(X)
        X = np.ascontiguousarray(X if X.dtype in (np.float32, np.float64) else X.astype(np.float64))
        if X.ndim != 2:
            raise ValueError(f"Expected 2D array, got {X.ndim}D array instead")
        if not np.isfinite(X).all():
            raise ValueError("Input X contains NaN or infinity.")
    n = X.shape[0]
    if x_squared_norms is not None and len(x_squared_norms) != n:
        raise ValueError(f"The length of x_squared_norms {len(x_squared_norms)} should be equal to the length of "
                         f"n_samples {n}.")
    if not isinstance(n_clusters, numbers.Integral) or n_clusters < 1:
        raise ValueError(f"n_clusters must be an int >= 1; got {n_clusters!r}")
    if n < n_clusters:
        raise ValueError(f"n_samples={n} should be >= n_clusters={n_clusters}.")
    if n_local_trials is not None and (not isinstance(n_local_trials, numbers.Integral) or n_local_trials < 1):
        raise ValueError(f"n_local_trials must be None or an int >= 1; got {n_local_trials!r}")
    args, _ = _fit_args(_SeedingParams(n_clusters, random_state, n_local_trials), X, n, "kmeans_plusplus")
    trials = int(n_local_trials or 0)
    if sparse_input:
        centers, indices = _engine_call(_engine.initialize, None, args, sparse=_csr_parts(X), greedy_trials=trials)
    else:
        centers, _ = _engine_call(_engine.initialize, X, args, greedy_trials=trials)
        indices = np.array([np.flatnonzero((X == c.astype(X.dtype)).all(axis=1))[0] for c in centers], dtype=np.int64)
    return centers.astype(X.dtype, copy=False), indices
