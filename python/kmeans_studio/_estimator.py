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
import warnings

import numpy as np

from . import _engine

try:  # scikit-learn's base classes and checks when it is there (Debian: python3-sklearn)
    from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
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

_SOLVERS = ("lloyd", "elkan", "hamerly", "yinyang", "exponion", "auto")
_INITS = {"k-means++": "kmeans++", "random": "random", "greedy-k-means++": "greedy-kmeans++", "maximin": "maximin"}
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


class KMeans(ClusterMixin, TransformerMixin, BaseEstimator):
    """K-means clustering by kmeans-studio's engine, with scikit-learn's API.

    Parameters
    ----------
    n_clusters : int, default=8
    solver : {'lloyd', 'elkan', 'hamerly', 'yinyang', 'exponion', 'auto'}, default='auto'
        The algorithm; all give the same labels and centroids ('auto': the engine's
        rule for the data's n, d, k and the back end, docs/solvers.md; `solver_`
        and `solver_choice_` say what it ran and why).
    backend : {'omp', 'seq', 'cuda', 'cuda-global', 'cuda-shared'}, default='omp'
    init : {'k-means++', 'random', 'greedy-k-means++', 'maximin'}, array of shape
        (n_clusters, n_features) or callable(X, n_clusters, random_state), default='k-means++'
    n_init : int or 'auto', default=1
        Restarts with seeds s, s+1, ...; the lowest inertia is kept ('auto': 1).
    max_iter : int, default=300
    tol : float, default=1e-4
        scikit-learn's tolerance: relative to the mean feature variance.
    random_state : None, int or RandomState, default=None
        An int is the engine's seed (as `kmeans-cli --seed`).
    n_threads : int or None, default=None
        OpenMP threads (None: all cores). Results do not depend on it.
    precision : None, 'f32' or 'f64', default=None
        None follows X's dtype (float32 data: f32, anything else: f64).
    devices : None, 'all' or sequence of int, default=None
        CUDA back ends: split the rows over these GPUs, stepped together (as
        `kmeans-cli --devices`); the centroids are bitwise those of one GPU with
        `devices=[N]` (docs/scale-out.md). None: one GPU.
    callback : callable(stats) or None, default=None
        Called after every iteration with that iteration's statistics (a dict, as
        in `history_`); returning False stops the fit there.

    Attributes
    ----------
    cluster_centers_, labels_, inertia_, n_iter_, n_features_in_,
    history_ : list of dict, one per iteration of every restart (key 'restart').
    """

    def __init__(self, n_clusters=8, *, solver="auto", backend="omp", init="k-means++", n_init=1, max_iter=300,
                 tol=1e-4, random_state=None, n_threads=None, precision=None, devices=None, callback=None):
        self.n_clusters = n_clusters
        self.solver = solver
        self.backend = backend
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_threads = n_threads
        self.precision = precision
        self.devices = devices
        self.callback = callback

    # ------------------------------------------------------------ checks
    def _check_X(self, X, reset):
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
        """Compute k-means clustering; returns self. X: array-like, or a CUDA array (see the module's doc)."""
        if _is_cuda_array(X):
            return self._fit_device(X, sample_weight)
        X = self._check_X(X, reset=True)
        weights = self._check_weights(sample_weight, X)
        args, init = self._engine_args(X, X.shape[0])
        # _check_X made X C-contiguous float32 or float64: the engine reads it in place.
        result = _engine.fit(X, args, sample_weight=weights, init=init, callback=self.callback,
                             compute_inertia=True)
        return self._store(result, args, X.dtype)

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
            result = _engine.fit_device(X, args, sample_weight=weights, init=init, callback=self.callback,
                                        compute_inertia=True)
        except RuntimeError as error:
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
        self.stop_reason_ = result["stop_reason"]
        self.solver_ = result["solver"]
        self.solver_choice_ = result["solver_choice"]
        self._fit_dtype = dtype
        return self

    def fit_predict(self, X, y=None, sample_weight=None):
        return self.fit(X, sample_weight=sample_weight).labels_

    def fit_transform(self, X, y=None, sample_weight=None):
        if _is_cuda_array(X):
            raise ValueError("transform takes host arrays; for a CUDA array use fit and predict")
        return self.fit(X, sample_weight=sample_weight)._transform(self._check_X(X, reset=False))

    def _check_fitted_X(self, X):
        if _HAVE_SKLEARN:
            check_is_fitted(self)
        elif not hasattr(self, "cluster_centers_"):
            raise AttributeError("This KMeans instance is not fitted yet; call fit first.")
        return self._check_X(X, reset=False)

    def _assign(self, X, sample_weight=None):
        centers = np.ascontiguousarray(self.cluster_centers_, dtype=np.float64)
        labels, inertia, _ = _engine.assign(X, centers, self._run_args(), sample_weight)
        return labels, inertia

    def _assign_device(self, X, sample_weight=None):
        if _HAVE_SKLEARN:
            check_is_fitted(self)
        shape, _ = self._check_device_X(X, reset=False)
        weights = self._device_weights(sample_weight, shape[0])
        centers = np.ascontiguousarray(self.cluster_centers_, dtype=np.float64)
        labels, inertia, address = _engine.assign_device(X, centers, self._run_args(), weights)
        self._predict_address_ = address
        return labels, inertia

    def predict(self, X, sample_weight=None):
        """The closest cluster of each sample (the engine's distance, ties to the lowest index).
        A CUDA array is assigned on the device; the labels come back as a NumPy array."""
        if _is_cuda_array(X):
            return self._assign_device(X)[0]
        X = self._check_fitted_X(X)
        return self._assign(X)[0]

    def transform(self, X):
        """Distances of each sample to every cluster centre."""
        if _is_cuda_array(X):
            raise ValueError("transform takes host arrays; for a CUDA array use predict, or pass a host copy")
        return self._transform(self._check_fitted_X(X))

    def _transform(self, X):
        centers = self.cluster_centers_.astype(X.dtype, copy=False)
        out = np.empty((X.shape[0], centers.shape[0]), dtype=X.dtype)
        step = max(1, (1 << 22) // max(1, centers.size))  # bounded temporary memory
        for start in range(0, X.shape[0], step):
            diff = X[start:start + step, None, :] - centers[None, :, :]
            out[start:start + step] = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
        return out

    def score(self, X, y=None, sample_weight=None):
        """Opposite of the (weighted) inertia of X against the cluster centres."""
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
    if n_init == "auto":
        n_init = 1
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
    else:
        init = params.init(X, k, _random_state(seed)) if callable(params.init) else params.init
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
    return args, init


def _random_state(seed):
    if _HAVE_SKLEARN:
        return check_random_state(seed)
    if seed is None or isinstance(seed, numbers.Integral):
        return np.random.RandomState(seed)
    return seed
