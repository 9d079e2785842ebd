"""Sparse input (SciPy CSR/CSC) and scikit-learn's API additions (algorithm=, verbose, copy_x,
get_feature_names_out / set_output, warnings, k_means, kmeans_plusplus). Run by CTest
(python_kmeans_studio)."""
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import KMeans as SKKMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from kmeans_studio import KMeans, k_means, kmeans_plusplus


def sparse_blobs(n, d, k, density, seed, dtype=np.float64):
    """Non-negative sparse data around k sparse centres (a bag-of-words shape)."""
    rng = np.random.default_rng(seed)
    centres = sp.random(k, d, density=min(1.0, 4 * density), random_state=seed).toarray() * 10
    labels = rng.integers(0, k, n)
    mask = sp.random(n, d, density=density, random_state=seed + 1, data_rvs=lambda m: rng.uniform(0.5, 1.5, m))
    X = mask.multiply(centres[labels] + 1.0).tocsr()
    return X.astype(dtype), rng.uniform(0.2, 3.0, n)


@pytest.mark.parametrize("algorithm", ["lloyd", "elkan"])
@pytest.mark.parametrize("weighted", [False, True])
def test_sparse_equals_sklearn_sparse(algorithm, weighted):
    """Same start: labels and n_iter_ equal to scikit-learn's sparse KMeans, inertia to 1e-12, f64."""
    X, w = sparse_blobs(3000, 300, 12, 0.02, seed=3)
    w = w if weighted else None
    C0 = X[np.random.default_rng(1).choice(X.shape[0], 12, replace=False)].toarray()
    for tol in (1e-4, 0.0):
        ours = KMeans(12, init=C0, n_init=1, tol=tol, algorithm=algorithm).fit(X, sample_weight=w)
        theirs = SKKMeans(12, init=C0, n_init=1, tol=tol, algorithm=algorithm).fit(X, sample_weight=w)
        np.testing.assert_array_equal(ours.labels_, theirs.labels_)
        assert ours.n_iter_ == theirs.n_iter_
        assert ours.inertia_ == pytest.approx(theirs.inertia_, rel=1e-12)
        np.testing.assert_allclose(ours.cluster_centers_, theirs.cluster_centers_, rtol=1e-10, atol=1e-12)
        assert ours.solver_.startswith(algorithm)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_equals_our_dense_run(dtype):
    X, w = sparse_blobs(2000, 50, 8, 0.1, seed=5, dtype=dtype)
    C0 = X[:8].toarray().astype(np.float64)
    sparse = KMeans(8, init=C0, solver="elkan").fit(X, sample_weight=w)
    dense = KMeans(8, init=C0, solver="lloyd", precision="f64").fit(X.toarray().astype(np.float64), sample_weight=w)
    np.testing.assert_array_equal(sparse.labels_, dense.labels_)
    assert sparse.n_iter_ == dense.n_iter_
    assert sparse.cluster_centers_.dtype == dtype
    np.testing.assert_allclose(sparse.cluster_centers_, dense.cluster_centers_, rtol=1e-5 if dtype == np.float32 else 1e-10)
    np.testing.assert_array_equal(sparse.predict(X), dense.predict(X.toarray()))
    assert sparse.score(X) == pytest.approx(dense.score(X.toarray()), rel=1e-5 if dtype == np.float32 else 1e-10)
    np.testing.assert_allclose(sparse.transform(X), dense.transform(X.toarray()), rtol=1e-4, atol=1e-4)


def test_sparse_is_bitwise_across_threads_solvers_and_formats():
    X, w = sparse_blobs(5000, 200, 20, 0.03, seed=7)
    runs = [KMeans(20, random_state=4, solver=s, n_threads=t).fit(X, sample_weight=w)
            for s, t in (("lloyd", 1), ("lloyd", 3), ("elkan", 1), ("elkan", 2))]
    runs.append(KMeans(20, random_state=4, solver="elkan", n_threads=2).fit(X.tocsc(), sample_weight=w))
    float_run = KMeans(20, random_state=4, n_threads=2).fit(X.astype(np.float32), sample_weight=w)
    for other in runs[1:]:
        np.testing.assert_array_equal(runs[0].labels_, other.labels_)
        assert runs[0].cluster_centers_.tobytes() == other.cluster_centers_.tobytes()
        assert runs[0].inertia_ == other.inertia_ and runs[0].n_iter_ == other.n_iter_
    elkan = runs[2].history_
    assert sum(r["point_centroid_distances"] for r in elkan[1:]) < 0.5 * 5000 * 20 * (len(elkan) - 1)
    # float32 values are fitted as the same values widened: the bits of the float64 run of those values
    widened = KMeans(20, random_state=4).fit(X.astype(np.float32).astype(np.float64), sample_weight=w)
    np.testing.assert_array_equal(float_run.labels_, widened.labels_)
    assert float_run.cluster_centers_.tobytes() == widened.cluster_centers_.astype(np.float32).tobytes()


def test_sparse_seeding_and_kmeans_plusplus():
    X, _ = sparse_blobs(1000, 40, 6, 0.2, seed=9)
    for init in ("k-means++", "random", "greedy-k-means++", "maximin", "k-means||"):
        s = KMeans(6, init=init, random_state=3).fit(X)
        d = KMeans(6, init=init, random_state=3).fit(X.toarray())
        np.testing.assert_array_equal(s.labels_, d.labels_)  # the same seeds (no near-ties here)
    centres, indices = kmeans_plusplus(X, 6, random_state=2)
    np.testing.assert_array_equal(centres, X[indices].toarray())
    dense_centres, dense_indices = kmeans_plusplus(X.toarray(), 6, random_state=2)
    np.testing.assert_array_equal(indices, dense_indices)
    with pytest.raises(ValueError, match="The length of x_squared_norms 3 should be equal"):
        kmeans_plusplus(X, 6, x_squared_norms=np.ones(3))


def test_sparse_refusals_and_zero_rows():
    X = sp.csr_matrix(np.array([[0, 0], [0, 0], [1, 0], [0, 2.0]]))
    km = KMeans(2, random_state=0).fit(X)  # empty rows are points at the origin
    assert set(km.labels_) == {0, 1}
    with pytest.raises(ValueError, match="sparse input runs the solvers 'lloyd' and 'elkan'"):
        KMeans(2, solver="hamerly").fit(X)
    bad = X.copy()
    bad.data[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        KMeans(2).fit(bad)


def test_algorithm_maps_onto_solver():
    X = np.random.default_rng(0).normal(size=(300, 3))
    assert KMeans(4, algorithm="elkan", random_state=0).fit(X).solver_.startswith("elkan")
    assert KMeans(4, algorithm="lloyd", solver="lloyd", random_state=0).fit(X).solver_.startswith("lloyd")
    with pytest.warns(FutureWarning, match="algorithm='full' is deprecated"):
        assert KMeans(4, algorithm="full", random_state=0).fit(X).solver_.startswith("lloyd")
    with pytest.warns(RuntimeWarning, match="algorithm='elkan' doesn't make sense for a single cluster"):
        KMeans(1, algorithm="elkan").fit(X)
    with pytest.raises(ValueError, match="algorithm is scikit-learn's name for solver"):
        KMeans(4, algorithm="elkan", solver="hamerly").fit(X)
    with pytest.raises(ValueError, match="The 'algorithm' parameter of KMeans must be"):
        KMeans(4, algorithm="fast").fit(X)


def test_verbose_lines(capsys):
    X = np.random.default_rng(1).normal(size=(2000, 4))
    KMeans(5, init="random", random_state=0, tol=0, verbose=1).fit(X)
    out = capsys.readouterr().out
    assert out.startswith("Initialization complete\nIteration 0, inertia ")
    assert re.search(r"Converged at iteration \d+: strict convergence\.", out)
    KMeans(5, init="random", random_state=0, tol=1e-2, verbose=1).fit(X)
    assert re.search(r"Converged at iteration \d+: center shift .* within tolerance", capsys.readouterr().out)


def test_feature_names_set_output_and_warnings():
    X = np.random.default_rng(2).normal(size=(200, 3))
    km = KMeans(4, random_state=0, copy_x=False).fit(X)
    assert list(km.get_feature_names_out()) == ["kmeans0", "kmeans1", "kmeans2", "kmeans3"]
    names = make_pipeline(StandardScaler(), KMeans(4, random_state=0)).fit(X).get_feature_names_out()
    assert list(names) == ["kmeans0", "kmeans1", "kmeans2", "kmeans3"]
    pd = pytest.importorskip("pandas")
    frame = KMeans(4, random_state=0).set_output(transform="pandas").fit_transform(pd.DataFrame(X, columns=list("abc")))
    assert list(frame.columns) == ["kmeans0", "kmeans1", "kmeans2", "kmeans3"]


def test_convergence_warning_on_duplicates():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 0]], dtype=float)
    with pytest.warns(ConvergenceWarning, match=r"Number of distinct clusters \(3\) found smaller than n_clusters \(4\)"):
        KMeans(4, random_state=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        KMeans(3, random_state=0).fit(X)


def test_k_means_function_and_n_init_auto():
    X = np.random.default_rng(3).normal(size=(500, 2))
    centres, labels, inertia, n_iter = k_means(X, 3, random_state=1, return_n_iter=True)
    km = KMeans(3, random_state=1, algorithm="lloyd").fit(X)
    np.testing.assert_array_equal(labels, km.labels_)
    assert inertia == km.inertia_ and n_iter == km.n_iter_ and centres.shape == (3, 2)
    assert KMeans(3, n_init="auto", init="random").fit(X)._n_init == 10
    assert KMeans(3, n_init="auto").fit(X)._n_init == 1


def test_engine_refusals_in_python_words():
    X = np.full((10, 2), 1e200)
    X[::2] = -1e200
    with pytest.raises(ValueError) as error:
        KMeans(2, precision="f32").fit(X)
    message = str(error.value)
    assert "--" not in message and len(message) < 300, message


def test_score_and_predict_refusals_are_value_errors():
    """Every engine refusal of the scores, predict, score and transform is a ValueError naming X (were RuntimeError
    for the number of labels and an empty centroid set; NaN or inf returned as scores and distances)."""
    from kmeans_studio import scores
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 2))
    for score in (scores.silhouette, scores.calinski_harabasz, scores.davies_bouldin):
        for labels in (np.zeros(30, int), np.arange(30)):
            with pytest.raises(ValueError, match=r"^Number of labels is (1|30)\. Valid values are 2 to n_samples - 1"):
                score(X, labels)
        with pytest.raises(ValueError, match=r"^X: coordinates up to \d\.\d+e\+300, too large for f64 distances"):
            score(X * 1e300, np.arange(30) % 3)
    with pytest.raises(ValueError, match="at least one centroid in each set"):
        scores.centroid_index(np.zeros((0, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="NaN or infinity"):
        scores.centroid_index(np.full((2, 2), np.nan), np.zeros((3, 2)))
    km = KMeans(3, random_state=0).fit(X)
    for call in (km.predict, km.score):
        with pytest.raises(ValueError, match=r"^X: coordinates up to .* too large for f64 distances"):
            call(X * 1e300)
        with pytest.raises(ValueError, match=r"^X: coordinates spread over only .* underflow"):
            call(X * 1e-310)
    with pytest.raises(ValueError, match=r"^X: distances to the cluster centres overflow float64"):
        km.transform(X * 1e300)


def test_large_float32_data_runs_in_f64():
    X = np.array([[-1e19, 0], [-1.1e19, 0], [1e19, 0], [1.2e19, 0]], dtype=np.float32)
    km = KMeans(2, random_state=0).fit(X)
    assert km._precision == "f64" and km.cluster_centers_.dtype == np.float32
    assert km.labels_[0] == km.labels_[1] != km.labels_[2] == km.labels_[3]
    with pytest.raises(ValueError, match="too large for f32 distances"):
        KMeans(2, precision="f32").fit(X)


def test_systems_refusals_in_python_words():
    import kmeans_studio
    X = np.random.default_rng(4).normal(size=(60, 2))
    for call in (lambda: kmeans_studio.sweep(X, (2, 4), n_threads=10**6),
                 lambda: kmeans_studio.SpectralClustering(2, n_threads=10**6).fit(X),
                 lambda: KMeans(2, n_threads=10**6).fit(sp.csr_matrix(X))):
        with pytest.raises(ValueError, match=r"n_threads=1000000 is more than") as error:
            call()
        assert "--" not in str(error.value)
