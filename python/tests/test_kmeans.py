"""kmeans_studio.KMeans against scikit-learn, and the package's own promises:
zero-copy, callback, cancellation, errors, scores. Run by CTest (python_kmeans_studio)."""
import os
import pickle
import signal
import threading
import time
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.cluster import KMeans as SKKMeans
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

import kmeans_studio
from kmeans_studio import KMeans, scores


def blobs(n, d, centres, seed, spread=1.0):
    rng = np.random.default_rng(seed)
    means = rng.uniform(-10, 10, size=(centres, d))
    return means[rng.integers(0, centres, n)] + spread * rng.normal(size=(n, d))


def sklearn_fit(X, C0, tol, sample_weight=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SKKMeans(n_clusters=len(C0), init=C0, n_init=1, tol=tol, max_iter=300).fit(X, sample_weight=sample_weight)


def assert_same_fit(ours, theirs):
    np.testing.assert_array_equal(ours.labels_, theirs.labels_)
    np.testing.assert_allclose(ours.cluster_centers_, theirs.cluster_centers_, rtol=1e-9, atol=1e-9)
    assert ours.inertia_ == pytest.approx(theirs.inertia_, rel=1e-9)


@pytest.mark.parametrize("solver", [*kmeans_studio._engine.algorithms(), "auto"])
@pytest.mark.parametrize("backend", ["seq", "omp"])
@pytest.mark.parametrize("weighted", [False, True])
def test_equals_scikit_learn(solver, backend, weighted):
    for seed in range(3):
        X = blobs(300 + 200 * seed, 2 + seed, 5, seed, spread=1.5)
        rng = np.random.default_rng(100 + seed)
        C0 = X[rng.choice(len(X), 6, replace=False)]
        w = None
        if weighted:
            w = rng.uniform(0, 3, len(X))
            w[rng.random(len(X)) < 0.2] = 0.0  # zero weights
        tol = 0.0 if seed % 2 else 1e-4
        ours = KMeans(6, solver=solver, backend=backend, init=C0, tol=tol, n_threads=2).fit(X, sample_weight=w)
        assert_same_fit(ours, sklearn_fit(X, C0, tol, w))
        assert ours.score(X, sample_weight=w) == pytest.approx(-ours.inertia_, rel=1e-12)


def test_integer_weights_equal_duplicated_points():
    X = blobs(500, 3, 4, 7)
    w = np.random.default_rng(7).integers(0, 4, len(X)).astype(float)
    w[0] = 1
    Xd = np.repeat(X, w.astype(int), axis=0)
    C0 = X[w > 0][:5].copy()  # distinct points
    weighted = KMeans(5, init=C0, tol=0).fit(X, sample_weight=w)
    duplicated = KMeans(5, init=C0, tol=0).fit(Xd)
    np.testing.assert_array_equal(np.repeat(weighted.labels_, w.astype(int)), duplicated.labels_)
    np.testing.assert_allclose(weighted.cluster_centers_, duplicated.cluster_centers_, rtol=1e-12)
    assert weighted.inertia_ == pytest.approx(duplicated.inertia_, rel=1e-12)
    assert_same_fit(weighted, sklearn_fit(X, C0, 0.0, w))


def test_unit_weights_and_threads_are_bitwise():
    X = blobs(3000, 4, 6, 3)
    w = np.random.default_rng(3).uniform(0, 2, len(X))
    for precision in ("f32", "f64"):
        plain = KMeans(7, random_state=5, precision=precision).fit(X)
        ones = KMeans(7, random_state=5, precision=precision).fit(X, sample_weight=np.ones(len(X)))
        assert np.array_equal(plain.cluster_centers_, ones.cluster_centers_) and plain.inertia_ == ones.inertia_
        one = KMeans(7, random_state=5, precision=precision, n_threads=1).fit(X, sample_weight=w)
        many = KMeans(7, random_state=5, precision=precision, n_threads=3).fit(X, sample_weight=w)
        assert np.array_equal(one.cluster_centers_, many.cluster_centers_) and one.inertia_ == many.inertia_
        assert np.array_equal(one.labels_, many.labels_)


def test_check_estimator():
    check_estimator(KMeans())


def test_pipeline_gridsearch_clone():
    X = blobs(400, 3, 4, 11)
    pipe = make_pipeline(StandardScaler(), KMeans(4, random_state=0))
    assert pipe.fit_predict(X).shape == (400,)
    search = GridSearchCV(KMeans(random_state=0), {"n_clusters": [2, 4], "solver": ["lloyd", "hamerly"]}, cv=3)
    search.fit(X)
    assert search.best_params_["n_clusters"] == 4  # score = -inertia: more clusters, lower inertia
    copy = clone(KMeans(3, solver="elkan", tol=0.0))
    assert copy.get_params()["solver"] == "elkan" and not hasattr(copy, "labels_")
    fitted = KMeans(3, random_state=1).fit(X)
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.predict(X), fitted.labels_)


def test_zero_copy():
    X = blobs(1000, 4, 3, 2)
    assert X.flags.c_contiguous and X.dtype == np.float64
    km = KMeans(3, random_state=0).fit(X)
    assert km._data_address_ == X.__array_interface__["data"][0]  # the engine read X in place
    labels, _, address = kmeans_studio._engine.assign(X, km.cluster_centers_, km._run_args())
    assert address == X.__array_interface__["data"][0]
    np.testing.assert_array_equal(labels, km.labels_)
    # Other layouts are converted once: the engine sees another buffer, same answer.
    for other in (np.asfortranarray(X), np.ascontiguousarray(X[::-1])[::-1], X.astype(np.float32)):
        fitted = KMeans(3, random_state=0, precision="f64").fit(other)
        assert fitted._data_address_ != other.__array_interface__["data"][0]
        if other.dtype == np.float64:
            np.testing.assert_array_equal(fitted.labels_, km.labels_)


@pytest.mark.parametrize("solver", kmeans_studio._engine.algorithms())
@pytest.mark.parametrize("weighted", [False, True])
def test_float32_read_in_place(solver, weighted):
    X32 = (blobs(3000, 3, 6, 7) + 1000.0).astype(np.float32)
    w = np.random.default_rng(3).integers(0, 4, X32.shape[0]).astype(np.float64) if weighted else None
    address = X32.__array_interface__["data"][0]
    km = KMeans(6, solver=solver, init="greedy-k-means++", n_init=2, random_state=5, tol=0.0)
    km.fit(X32, sample_weight=w)
    assert km._data_address_ == address  # float32 data, float32 run: read in place
    # The same fit as of the values widened to float64 and run in float32, bit for bit.
    widened = KMeans(6, solver=solver, init="greedy-k-means++", n_init=2, random_state=5, tol=0.0,
                     precision="f32").fit(X32.astype(np.float64), sample_weight=w)
    assert widened._data_address_ != address
    np.testing.assert_array_equal(km.labels_, widened.labels_)
    np.testing.assert_array_equal(km.cluster_centers_, widened.cluster_centers_)
    assert km.inertia_ == widened.inertia_ and km.n_iter_ == widened.n_iter_
    labels, inertia, seen = kmeans_studio._engine.assign(X32, km.cluster_centers_.astype(np.float64), km._run_args(),
                                                          w)
    assert seen == address
    np.testing.assert_array_equal(labels, km.predict(X32))
    # float32 data run in float64: the engine's one converted copy, the widened data's answer.
    km64 = KMeans(6, solver=solver, random_state=5, precision="f64").fit(X32, sample_weight=w)
    ref64 = KMeans(6, solver=solver, random_state=5).fit(X32.astype(np.float64), sample_weight=w)
    assert km64._data_address_ != address
    np.testing.assert_array_equal(km64.labels_, ref64.labels_)
    # (cluster_centers_ are in X's dtype, as scikit-learn's)
    np.testing.assert_array_equal(km64.cluster_centers_, ref64.cluster_centers_.astype(np.float32))
    assert km64.inertia_ == ref64.inertia_


def test_float32_precision_and_dtype():
    X = blobs(2000, 3, 5, 4).astype(np.float32)
    km = KMeans(5, random_state=2).fit(X)
    assert km.solver_.endswith("/f32") and km.cluster_centers_.dtype == np.float32
    assert km.transform(X).dtype == np.float32
    km64 = KMeans(5, random_state=2).fit(X.astype(np.float64))
    assert km64.solver_.endswith("/f64")
    assert (km.labels_ == km64.labels_).mean() > 0.99


def test_history_and_callback():
    X = blobs(3000, 2, 8, 5)
    km = KMeans(8, random_state=3, tol=0, n_init=3).fit(X)
    assert {r["restart"] for r in km.history_} == {0, 1, 2}
    best = [r for r in km.history_ if r["restart"] == np.argmin([r["inertia"] for r in km.restarts_])]
    assert len(best) == km.n_iter_ and best[-1]["labels_changed"] == 0
    assert best[-1]["inertia"] == pytest.approx(km.inertia_, rel=1e-12)
    assert all(a["inertia"] >= b["inertia"] - 1e-9 for a, b in zip(best, best[1:]))  # Lloyd never increases it
    seen = []
    km = KMeans(8, random_state=3, tol=0, callback=lambda stats: seen.append(stats)).fit(X)
    assert [s["iteration"] for s in seen] == list(range(1, km.n_iter_ + 1)) and seen == km.history_
    stopped = KMeans(8, random_state=3, tol=0, callback=lambda stats: stats["iteration"] < 2).fit(X)
    assert stopped.n_iter_ == 2 and stopped.stop_reason_ == "cancelled" and len(stopped.history_) == 2

    def boom(stats):
        raise ZeroDivisionError("from the callback")
    with pytest.raises(ZeroDivisionError, match="from the callback"):
        KMeans(8, callback=boom).fit(X)


def test_new_solvers_report_their_pruning():
    # Shallot's balls around the tracked second, Ball k-means' stable points and
    # neighbour distances: in history_, and the same centres as Lloyd's.
    X = blobs(4000, 2, 60, 11)
    lloyd = KMeans(60, solver="lloyd", init="random", random_state=2, tol=0).fit(X)
    shallot = KMeans(60, solver="shallot", init="random", random_state=2, tol=0).fit(X)
    ball = KMeans(60, solver="ball", init="random", random_state=2, tol=0).fit(X)
    for km in (shallot, ball):
        assert np.array_equal(km.cluster_centers_, lloyd.cluster_centers_) and km.n_iter_ == lloyd.n_iter_
    assert sum(r["second_centred"] for r in shallot.history_) > 0
    assert sum(r["stable_points"] for r in ball.history_) > 0
    assert sum(r["neighbour_clusters"] for r in ball.history_) > 0
    assert all(r["stable_points"] == 0 and r["second_centred"] == 0 for r in lloyd.history_)


def test_keyboard_interrupt_cancels_within_100_ms():
    X = blobs(300_000, 8, 50, 6)
    main = threading.get_ident()
    sent = []

    def interrupt():
        time.sleep(0.4)
        sent.append(time.perf_counter())
        signal.pthread_kill(main, signal.SIGINT)
    threading.Thread(target=interrupt, daemon=True).start()
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        KMeans(300, solver="lloyd", init="random", random_state=0, tol=0, max_iter=10_000, n_threads=2).fit(X)
    latency = time.perf_counter() - sent[0]
    assert sent[0] - start > 0.3  # the fit was running, not refused
    print(f"KeyboardInterrupt after {latency * 1000:.1f} ms, fit ran {sent[0] - start:.2f} s")
    assert latency < 0.1, f"KeyboardInterrupt took {latency * 1000:.1f} ms"


@pytest.mark.parametrize("X, message", [
    (np.array([[0.0, np.nan], [1.0, 2.0]] * 5), "Input X contains NaN"),
    (np.array([[0.0, np.inf], [1.0, 2.0]] * 5), "Input X contains infinity"),
    (np.arange(10.0), "Expected 2D array, got 1D array instead"),
    (np.zeros((0, 3)), "Found array with 0 sample"),
    (np.zeros((2, 3)), "n_samples=2 should be >= n_clusters=3"),
])
def test_bad_data(X, message):
    with pytest.raises(ValueError, match=message):
        KMeans(3).fit(X)


@pytest.mark.parametrize("params, message", [
    ({"n_clusters": 0}, "'n_clusters' parameter of KMeans must be an int"),
    ({"solver": "annular"}, "'solver' parameter of KMeans"),
    ({"backend": "tpu"}, "'backend' parameter of KMeans"),
    ({"init": "kmeans||"}, "'init' parameter of KMeans"),
    ({"init": np.zeros((2, 2))}, "shape of the initial centers \\(2, 2\\) does not match the number of clusters 3"),
    ({"tol": -1.0}, "'tol' parameter"),
    ({"max_iter": 0}, "'max_iter' parameter"),
    ({"n_init": 0}, "'n_init' parameter"),
    ({"precision": "f16"}, "'precision' parameter"),
    ({"n_threads": 10**6}, "n_threads=1000000 is more than"),  # the engine's refusal, in Python's words
    ({"devices": [0, 1]}, "'devices' parameter of KMeans needs a CUDA back end"),
    ({"devices": [], "backend": "cuda"}, "'devices' parameter of KMeans must be None, 'all' or a non-empty"),
    ({"devices": "0,1", "backend": "cuda"}, "'devices' parameter of KMeans must be None, 'all' or a non-empty"),
    ({"devices": [0, -1], "backend": "cuda"}, "'devices' parameter of KMeans must be None, 'all' or a non-empty"),
    ({"devices": (x for x in [-1]), "backend": "cuda"},
     "'devices' parameter of KMeans must be None, 'all' or a non-empty"),
])
def test_bad_options(params, message):
    with pytest.raises(ValueError, match=message):
        KMeans(**{"n_clusters": 3, **params}).fit(blobs(50, 2, 3, 1))


def test_bad_weights_and_predict_shape():
    X = blobs(50, 2, 3, 1)
    with pytest.raises(ValueError, match="Negative values"):
        KMeans(3).fit(X, sample_weight=-np.ones(50))
    with pytest.raises(ValueError, match="sample_weight.shape"):
        KMeans(3).fit(X, sample_weight=np.ones(49))
    with pytest.raises(ValueError, match="sums to zero|at least one non-zero"):  # ours, or scikit-learn >= 1.6
        KMeans(3).fit(X, sample_weight=np.zeros(50))
    km = KMeans(3).fit(X)
    with pytest.raises(ValueError, match="X has 3 features, but KMeans is expecting 2 features"):
        km.predict(np.zeros((4, 3)))


def test_cuda_backend_unavailable_is_clear():
    available, reason = kmeans_studio.backends()["cuda"]
    if available:
        pytest.skip("a CUDA device is here (test_cuda.py covers it)")
    with pytest.raises(RuntimeError, match="cuda"):
        KMeans(3, backend="cuda").fit(blobs(50, 2, 3, 1))


def test_scores_equal_scikit_learn():
    from sklearn import metrics
    X = blobs(600, 3, 4, 9)
    labels = KMeans(4, random_state=0).fit_predict(X)
    truth = np.random.default_rng(1).integers(0, 4, len(X))
    assert scores.silhouette(X, labels) == pytest.approx(metrics.silhouette_score(X, labels), rel=1e-10)
    assert scores.silhouette(X.astype(np.float32), labels) == pytest.approx(metrics.silhouette_score(X, labels),
                                                                            rel=1e-5)
    assert scores.calinski_harabasz(X, labels) == pytest.approx(metrics.calinski_harabasz_score(X, labels), rel=1e-10)
    assert scores.davies_bouldin(X, labels) == pytest.approx(metrics.davies_bouldin_score(X, labels), rel=1e-10)
    assert scores.adjusted_rand(truth, labels) == pytest.approx(metrics.adjusted_rand_score(truth, labels), abs=1e-12)
    assert scores.normalized_mutual_info(truth, labels) == pytest.approx(
        metrics.normalized_mutual_info_score(truth, labels), abs=1e-12)
    sampled, values = scores.silhouette(X, labels, sample_size=200, random_state=3, return_values=True)
    assert len(values) == 200 and abs(sampled - metrics.silhouette_score(X, labels)) < 0.05
    centres = np.array([[0.0, 0.0], [10.0, 10.0]])
    assert scores.centroid_index(centres, centres) == 0
    assert scores.centroid_index(np.array([[0.0, 0.0], [0.1, 0.1]]), centres) == 1
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        scores.calinski_harabasz(X, labels[:-1])
    with pytest.raises(ValueError, match="Number of labels is 1"):
        scores.silhouette(X, np.zeros(len(X), dtype=int))


class FakeCudaArray:
    """An object with __cuda_array_interface__ (its address is host memory: the
    engine must refuse it before reading anything)."""

    def __init__(self, shape=(10, 2), typestr="<f8", strides=None):
        self.keep = np.zeros(shape, dtype=np.dtype(typestr))
        self.shape = shape
        self.dtype = self.keep.dtype
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "strides": strides,
                                         "data": (self.keep.ctypes.data, False), "version": 3}


def test_cuda_array_interface_checked_before_use():
    from kmeans_studio import _engine
    args = ["--k", "2", "--backend", "cuda"]
    with pytest.raises(ValueError, match="float32 or float64"):
        _engine.fit_device(FakeCudaArray(typestr="<i4"), args, protocol="cai")
    with pytest.raises(ValueError, match="C-contiguous"):
        _engine.fit_device(FakeCudaArray(strides=(8, 80)), args, protocol="cai")
    with pytest.raises(ValueError, match="2-D"):
        _engine.fit_device(FakeCudaArray(shape=(10,)), args, protocol="cai")
    with pytest.raises(ValueError, match="protocol"):
        _engine.fit_device(FakeCudaArray(), args, protocol="nope")
    # Host memory behind the interface: refused (no CUDA here, or not device memory).
    with pytest.raises(RuntimeError):
        _engine.fit_device(FakeCudaArray(), args, protocol="cai")
    # The estimator routes CUDA arrays to the device and says which back end they need.
    with pytest.raises(ValueError, match="backend='cuda'"):
        KMeans(2).fit(FakeCudaArray())


def test_auto_reports_the_solver_it_chose():
    X = blobs(2000, 2, 8, 3)
    km = KMeans(8, solver="auto", random_state=0, n_threads=2).fit(X)
    chosen = km.solver_.split("/")[0]
    assert chosen in kmeans_studio._engine.algorithms()
    assert km.solver_choice_.startswith(chosen + ": ")
    named = KMeans(8, solver=chosen, random_state=0, n_threads=2).fit(X)
    assert named.solver_choice_ == ""
    np.testing.assert_array_equal(named.labels_, km.labels_)
    np.testing.assert_array_equal(named.cluster_centers_, km.cluster_centers_)
