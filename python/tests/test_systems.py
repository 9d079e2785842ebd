"""The engine's other systems from Python: the k-sweep (kmeans_studio.sweep),
spectral clustering (kmeans_studio.SpectralClustering) and geographic data
(kmeans_studio.geo_project). The results are compared with `kmeans-cli` (KMS_CLI,
set by CTest) on the same data and seed, and with what the docs promise.
Run by CTest (python_kmeans_studio)."""
import json
import os
import signal
import subprocess
import threading
import time

import numpy as np
import pytest
from sklearn.base import clone

import kmeans_studio
from kmeans_studio import EARTH_RADIUS_KM, KMeans, SpectralClustering, geo_project, geo_unproject, scores, sweep

CLI = os.environ.get("KMS_CLI", "")
needs_cli = pytest.mark.skipif(not (CLI and os.access(CLI, os.X_OK)),
                               reason="KMS_CLI (the kmeans-cli executable; CTest sets it) is not set")


def cli(*args, check=True):
    done = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=120)
    if check and done.returncode != 0:
        raise AssertionError(f"kmeans-cli {' '.join(map(str, args))} exited {done.returncode}: {done.stderr}")
    return done


def blobs(n, d, means, seed, spread=1.0):
    rng = np.random.default_rng(seed)
    means = np.asarray(means, dtype=float)
    truth = rng.integers(0, len(means), n)
    return means[truth] + spread * rng.normal(size=(n, d)), truth


def separated_means(k, d, seed, distance=40.0):
    """k means on a d-dimensional grid-free layout, pairwise at least `distance` apart."""
    rng = np.random.default_rng(seed)
    means = []
    while len(means) < k:
        candidate = rng.uniform(-100, 100, d)
        if all(np.linalg.norm(candidate - m) >= distance for m in means):
            means.append(candidate)
    return np.array(means)


def moons(n, noise, seed):
    """Two interleaving half circles (as scikit-learn's make_moons), with their labels."""
    rng = np.random.default_rng(seed)
    outer = n // 2
    t_out = np.linspace(0, np.pi, outer)
    t_in = np.linspace(0, np.pi, n - outer)
    X = np.concatenate([np.column_stack([np.cos(t_out), np.sin(t_out)]),
                        np.column_stack([1 - np.cos(t_in), 1 - np.sin(t_in) - 0.5])])
    y = np.concatenate([np.zeros(outer, np.int32), np.ones(n - outer, np.int32)])
    X += noise * rng.normal(size=X.shape)
    order = rng.permutation(n)
    return X[order], y[order]


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def nan_or(value):
    return np.nan if value is None else value


# ---------------------------------------------------------------- sweep
@needs_cli
@pytest.mark.parametrize("solver, hierarchy, scores_mode, k_range",
                         [("auto", False, "exact", (2, 9)), ("hamerly", True, "exact", (2, 10, 2)),
                          ("elkan", False, "sampled:150", (3, 7)), ("lloyd", True, "none", (1, 6))])
def test_sweep_equals_cli_json(tmp_path, solver, hierarchy, scores_mode, k_range):
    X, _ = blobs(700, 3, separated_means(5, 3, 1, distance=8), 2, spread=2.0)
    np.save(tmp_path / "X.npy", X)
    step = k_range[2] if len(k_range) == 3 else 1
    r = sweep(X, k_range, random_state=7, solver=solver, hierarchy=hierarchy, scores=scores_mode, n_init=2)
    command = ["sweep", "--input", tmp_path / "X.npy", "--k-range", f"{k_range[0]}:{k_range[1]}:{step}",
               "--seed", 7, "--solver", solver, "--empty", "farthest", "--n-init", 2, "--scores", scores_mode,
               "--report", "json", "--levels-out", tmp_path / "levels.csv"] + (["--hierarchy"] if hierarchy else [])
    lines = json_lines(cli(*command).stdout)
    levels = sorted((line for line in lines if line["type"] == "level"), key=lambda line: line["k"])
    summary = next(line for line in lines if line["type"] == "sweep_summary")
    assert r.k.tolist() == [level["k"] for level in levels] == list(range(k_range[0], k_range[1] + 1, step))
    # Exactly: the JSON numbers are the shortest round-trip text of the doubles.
    assert r.inertia.tolist() == [level["inertia"] for level in levels]
    assert r.iterations.tolist() == [level["iterations"] for level in levels]
    assert r.stop_reason == [level["stop_reason"] for level in levels]
    assert r.seed.tolist() == [level["seed"] for level in levels]
    assert r.start == [level["start"] for level in levels]
    for name in ("silhouette", "calinski_harabasz", "davies_bouldin"):
        np.testing.assert_array_equal(getattr(r, name), [nan_or(level[name]) for level in levels], err_msg=name)
    if scores_mode.startswith("sampled"):
        assert r.silhouette_standard_error.tolist() == [level["silhouette_standard_error"] for level in levels]
        assert r.silhouette_sample_size.tolist() == [level["silhouette_sample_size"] for level in levels] == \
            [150] * len(levels)
    for key in ("elbow_k", "elbow_reason", "best_silhouette_k", "best_calinski_harabasz_k", "best_davies_bouldin_k",
                "k_range", "hierarchy"):
        assert getattr(r, key) == summary[key], key
    written = np.loadtxt(tmp_path / "levels.csv", delimiter=",", skiprows=1, dtype=np.int32, ndmin=2)
    assert open(tmp_path / "levels.csv").readline().strip() == ",".join(f"k={k}" for k in r.k)
    np.testing.assert_array_equal(r.labels, written)
    assert r.labels.shape == (len(X), len(r.k))
    if scores_mode == "none":
        assert np.isnan(r.silhouette).all() and r.best_silhouette_k is None
        assert np.isfinite(r.calinski_harabasz[r.k > 1]).all()


@needs_cli
def test_sweep_relocates_empty_clusters_as_kmeans_does(tmp_path):
    # Half the points on one spot: random starts pick it twice, leaving a cluster empty.
    rng = np.random.default_rng(4)
    X = np.concatenate([np.zeros((300, 2)), rng.normal(size=(300, 2)) * 3])
    np.save(tmp_path / "X.npy", X)
    r = sweep(X, (3, 9), init="random", random_state=1, scores="none")

    def cli_inertia(empty):
        done = cli("sweep", "--input", tmp_path / "X.npy", "--k-range", "3:9", "--init", "random", "--seed", 1,
                   "--solver", "auto", "--scores", "none", "--empty", empty, "--report", "json")
        return [line["inertia"] for line in sorted(json_lines(done.stdout), key=lambda l: l.get("k", 0))
                if line["type"] == "level"]
    assert r.inertia.tolist() == cli_inertia("farthest")
    assert r.inertia.tolist() != cli_inertia("keep")  # the data do leave clusters empty


@pytest.mark.parametrize("weighted", [False, True])
def test_sweep_level_is_kmeans_of_that_k(weighted):
    X, _ = blobs(900, 2, separated_means(6, 2, 3, distance=10), 4, spread=2.5)
    w = np.random.default_rng(5).uniform(0.2, 3.0, len(X)) if weighted else None
    r = sweep(X, (2, 8), random_state=11, sample_weight=w, solver="hamerly", n_init=3)
    for j, k in enumerate(r.k):
        km = KMeans(int(k), random_state=11, solver="hamerly", n_init=3).fit(X, sample_weight=w)
        np.testing.assert_array_equal(r.labels[:, j], km.labels_)
        np.testing.assert_array_equal(r.cluster_centers[j], km.cluster_centers_)
        assert r.inertia[j] == km.inertia_
        assert r.iterations[j] == km.n_iter_
        # The scores are unweighted, as the CLI's (docs/sweep.md), and are the scores module's.
        assert r.silhouette[j] == pytest.approx(scores.silhouette(X, km.labels_), rel=1e-12)
        assert r.calinski_harabasz[j] == pytest.approx(scores.calinski_harabasz(X, km.labels_), rel=1e-12)
        assert r.davies_bouldin[j] == pytest.approx(scores.davies_bouldin(X, km.labels_), rel=1e-12)
    assert r.level(5) == 3
    np.testing.assert_array_equal(r.time_ms, r.fit_ms + r.scores_ms)


def cross_means(k, d, seed):
    """Centres at +-10 on the axes (the C++ suite's separated_blobs): about equally far apart, d >= k / 2."""
    rng = np.random.default_rng(seed)
    means = rng.uniform(-1, 1, size=(k, d))
    for c in range(k):
        means[c, c // 2] += -10.0 if c % 2 else 10.0
    return means


@pytest.mark.parametrize("true_k, d, hierarchy", [(4, 2, False), (5, 3, False), (6, 4, True), (7, 8, False),
                                                  (3, 2, True)])
def test_sweep_suggests_the_true_k_on_separated_blobs(true_k, d, hierarchy):
    X, _ = blobs(120 * true_k, d, cross_means(true_k, d, true_k), true_k, spread=0.4)
    r = sweep(X, (2, 10), random_state=true_k, n_init=3, hierarchy=hierarchy)
    assert r.elbow_k == true_k, r.elbow_reason
    assert r.best_silhouette_k == true_k
    assert r.best_calinski_harabasz_k == true_k
    assert r.best_davies_bouldin_k == true_k


def test_sweep_has_no_elbow_on_a_straight_curve():
    X = np.random.default_rng(0).uniform(size=(2000, 2))
    r = sweep(X, (30, 34), random_state=0, scores="none")
    assert r.elbow_k is None and "nearly straight" in r.elbow_reason
    two = sweep(X, (2, 3), random_state=0, scores="none")
    assert two.elbow_k is None and "fewer than 3" in two.elbow_reason


def merge_closest(centres, sizes):
    """docs/sweep.md's merge rule, written again here as the oracle."""
    centres, sizes = centres.copy(), list(sizes)
    k = len(centres)
    best, pair = np.inf, None
    for i in range(k):
        for j in range(i + 1, k):
            distance = np.sum((centres[i] - centres[j]) ** 2)
            if distance < best:
                best, pair = distance, (i, j)
    i, j = pair
    total = sizes[i] + sizes[j]
    centres[i] = (sizes[i] * centres[i] + sizes[j] * centres[j]) / total if total > 0 else \
        0.5 * (centres[i] + centres[j])
    sizes[i] = total
    return np.delete(centres, j, axis=0), sizes[:j] + sizes[j + 1:]


def test_sweep_hierarchy_levels_nest_and_start_from_merged_centres():
    # Three far groups of 2, 3 and 3 tight blobs: k = 3..8 should nest exactly.
    groups = [np.array([0.0, 0.0]), np.array([400.0, 0.0]), np.array([0.0, 400.0])]
    means = [groups[g] + offset for g, count in zip(range(3), (2, 3, 3))
             for offset in np.array([[0, 0], [40, 0], [0, 40]])[:count]]
    X, _ = blobs(1600, 2, means, 8, spread=2.0)
    r = sweep(X, (3, 8), hierarchy=True, random_state=2, n_init=3)
    assert r.labels.shape == (len(X), 6) and r.labels.dtype == np.int32
    assert r.start == ["merged"] * 5 + ["kmeans++"]
    for j in range(len(r.k)):
        assert set(np.unique(r.labels[:, j])) == set(range(r.k[j]))
    for j in range(len(r.k) - 1):
        finer, coarser = r.labels[:, j + 1], r.labels[:, j]
        for c in range(r.k[j + 1]):
            assert len(np.unique(coarser[finer == c])) == 1, f"cluster {c} of k={r.k[j + 1]} is split at k={r.k[j]}"
        # Level k starts from level k+1's centroids with the closest two merged (size-weighted).
        sizes = np.bincount(finer, minlength=r.k[j + 1]).astype(float).tolist()
        merged, _ = merge_closest(r.cluster_centers[j + 1], sizes)
        np.testing.assert_allclose(r.initial_centers[j], merged, rtol=1e-13, atol=1e-12)
    # A plain sweep's levels do not start from merged centres.
    plain = sweep(X, (3, 8), random_state=2, n_init=3)
    assert plain.start == ["kmeans++"] * 6


def test_sweep_hierarchy_takes_the_largest_k_centres_as_init():
    X, _ = blobs(600, 2, separated_means(4, 2, 9), 9)
    init = X[:5].copy()
    r = sweep(X, (2, 5), hierarchy=True, init=init, random_state=0)
    np.testing.assert_array_equal(r.initial_centers[-1], init)
    km = KMeans(5, init=init).fit(X)
    np.testing.assert_array_equal(r.labels[:, -1], km.labels_)


def test_sweep_float32_and_ranges():
    X, _ = blobs(500, 2, separated_means(3, 2, 4), 4)
    r32 = sweep(X.astype(np.float32), range(2, 7, 2), random_state=1)
    assert r32.k.tolist() == [2, 4, 6] and r32.solver[0].endswith("/f32")
    assert r32.cluster_centers[0].dtype == np.float32
    km = KMeans(4, random_state=1).fit(X.astype(np.float32))
    np.testing.assert_array_equal(r32.labels[:, 1], km.labels_)
    assert sweep(X, "2:6:2", random_state=1).k.tolist() == [2, 4, 6]
    assert sweep(X, (2, 6), step=2, random_state=1).k.tolist() == [2, 4, 6]
    assert sweep(X, (2, 6, 2), random_state=1).inertia.tolist() == sweep(X, "2:6:2", random_state=1).inertia.tolist()


def test_sweep_bad_arguments():
    X, _ = blobs(50, 2, [[0, 0], [10, 10]], 0)
    with pytest.raises(ValueError, match="k starts at 1 or more"):
        sweep(X, (0, 5))
    with pytest.raises(ValueError, match="the last k is smaller than the first"):
        sweep(X, (5, 2))
    with pytest.raises(ValueError, match="not a whole number"):
        sweep(X, "2:x")
    with pytest.raises(ValueError, match="the step must be at least 1"):
        sweep(X, (2, 5), step=0)
    with pytest.raises(ValueError, match="k_range must be"):
        sweep(X, 5)
    with pytest.raises(ValueError, match="must be an int"):
        sweep(X, (2.5, 5))
    with pytest.raises(ValueError, match="asks for k = 60 but X has 50 samples"):
        sweep(X, (2, 60))
    with pytest.raises(ValueError, match="scores must be"):
        sweep(X, (2, 4), scores="fast")
    with pytest.raises(ValueError, match="N must be a whole number >= 1"):
        sweep(X, (2, 4), scores="sampled:0")
    with pytest.raises(ValueError, match="centres of one k"):
        sweep(X, (2, 4), init=X[:4])
    with pytest.raises(ValueError, match="'solver' parameter of sweep"):
        sweep(X, (2, 4), solver="fastest")
    with pytest.raises(ValueError, match="Negative values"):
        sweep(X, (2, 4), sample_weight=-np.ones(len(X)))
    with pytest.raises(ValueError, match="NaN"):
        sweep(np.where(np.arange(100).reshape(50, 2) == 7, np.nan, X), (2, 4))
    with pytest.raises(ValueError, match="hierarchy must be"):
        sweep(X, (2, 4), hierarchy="yes")


# ---------------------------------------------------------------- spectral
def test_spectral_separates_two_moons_where_kmeans_cannot():
    X, y = moons(3000, 0.05, 1)
    spectral = SpectralClustering(2, n_representatives=400, random_state=0).fit(X)
    plain = KMeans(2, random_state=0, n_init=5).fit(X)
    assert scores.adjusted_rand(y, spectral.labels_) >= 0.95
    assert scores.adjusted_rand(y, plain.labels_) < 0.6
    assert spectral.n_clusters_ == 2
    assert spectral.labels_.shape == (len(X),) and spectral.labels_.dtype == np.int32


def test_spectral_auto_picks_two_on_moons_and_reports_the_chain():
    X, y = moons(2000, 0.05, 3)
    model = SpectralClustering(n_representatives=300, random_state=4).fit(X)
    assert model.n_clusters_ == 2
    assert scores.adjusted_rand(y, model.labels_) >= 0.95
    values = model.eigenvalues_
    assert len(values) >= 21 and np.all(np.diff(values) >= -1e-12) and abs(values[0]) < 1e-8
    floor = 1e-10
    ratios = np.maximum(values[2:21], floor) / np.maximum(values[1:20], floor)
    assert np.argmax(ratios) + 2 == 2  # the largest log-scale gap is after the second eigenvalue
    assert model.eigengap_ == pytest.approx(values[2] - values[1], rel=1e-12, abs=1e-15)
    assert model.eigengap_ratio_ == pytest.approx(max(values[2], floor) / max(values[1], floor), rel=1e-12)
    # Every point takes its representative's label.
    assert model.representatives_.shape == (300, 2)
    assert model.representative_of_.shape == (len(X),) and model.representative_of_.max() < 300
    np.testing.assert_array_equal(model.labels_, model.representative_labels_[model.representative_of_])
    assert model.representative_sizes_.sum() == len(X)
    np.testing.assert_array_equal(model.representative_sizes_, np.bincount(model.representative_of_, minlength=300))
    assert model.embedding_.shape == (300, 2)
    np.testing.assert_allclose(np.linalg.norm(model.embedding_, axis=1), 1.0, rtol=1e-12)
    assert model.graph_ == "knn-symmetrised" and model.n_neighbors_ == 10 and model.sigma_ > 0
    assert model.eigensolver_.startswith("LAPACK")
    times = model.times_
    assert set(times) == {"time_representatives_ms", "time_similarity_ms", "time_eigensolver_ms",
                          "time_final_kmeans_ms", "time_labelling_ms", "time_total_ms"}
    assert times["time_total_ms"] == pytest.approx(sum(v for k, v in times.items() if k != "time_total_ms"))


@pytest.mark.parametrize("k", [3, 5])
def test_spectral_auto_counts_separated_blobs(k):
    X, y = blobs(400 * k, 2, separated_means(k, 2, 20 + k, distance=30), k, spread=1.0)
    model = SpectralClustering(n_representatives=250, random_state=1).fit(X)
    assert model.n_clusters_ == k
    assert scores.adjusted_rand(y, model.labels_) == pytest.approx(1.0)


@needs_cli
@pytest.mark.parametrize("k, extra", [("auto", {}), (2, {"n_neighbors": 0, "sigma": 0.08, "rep_weights": "none"})])
def test_spectral_equals_cli(tmp_path, k, extra):
    X, _ = moons(1500, 0.06, 9)
    np.save(tmp_path / "moons.npy", X)
    model = SpectralClustering(k, n_representatives=200, random_state=3, final_n_init=4, **extra).fit(X)
    options = ["--neighbours", extra.get("n_neighbors", 10), "--rep-weights", extra.get("rep_weights", "size")]
    if "sigma" in extra:
        options += ["--sigma", extra["sigma"]]
    done = cli("spectral", "--input", tmp_path / "moons.npy", "--k", k, "--representatives", 200, "--seed", 3,
               "--final-n-init", 4, "--empty", "farthest", *options, "--report", "json", "--labels-out",
               tmp_path / "labels.txt")
    summary = json_lines(done.stdout)[-1]
    np.testing.assert_array_equal(model.labels_, np.loadtxt(tmp_path / "labels.txt", dtype=np.int32))
    assert model.n_clusters_ == summary["k"] and (k == "auto") == summary["k_auto"]
    assert model.eigenvalues_[:len(summary["eigenvalues"])].tolist() == summary["eigenvalues"]
    assert model.eigengap_ == summary["eigengap"] and model.eigengap_ratio_ == summary["eigengap_ratio"]
    assert model.sigma_ == summary["sigma"] and model.sigma_rule_ == summary["sigma_rule"]
    assert model.graph_ == summary["graph"]
    assert model.representatives_inertia_ == summary["representatives_inertia"]
    assert model.representatives_solver_ == summary["representatives_solver"]
    assert model.final_inertia_ == summary["final_inertia"]


def test_spectral_estimator_api():
    X, y = moons(800, 0.05, 2)
    model = SpectralClustering(2, n_representatives=120, random_state=5)
    assert clone(model).get_params() == model.get_params()
    labels = model.fit_predict(X)
    np.testing.assert_array_equal(labels, model.labels_)
    np.testing.assert_array_equal(SpectralClustering(2, n_representatives=120, random_state=5).fit(X).labels_, labels)
    assert model.n_features_in_ == 2
    # float32 data: the representatives' k-means runs in f32, the answer stays good.
    model32 = SpectralClustering(2, n_representatives=120, random_state=5).fit(X.astype(np.float32))
    assert model32.representatives_solver_.endswith("/f32") and model32.representatives_.dtype == np.float32
    assert scores.adjusted_rand(y, model32.labels_) >= 0.95


def test_spectral_bad_arguments():
    X, _ = moons(300, 0.05, 0)
    for params, message in [({"n_clusters": 0}, "'n_clusters' parameter"),
                            ({"n_clusters": "many"}, "'n_clusters' parameter"),
                            ({"n_representatives": 1}, "'n_representatives' parameter"),
                            ({"n_representatives": 301}, "n_representatives=301 must be <= n_samples=300"),
                            ({"n_neighbors": -1}, "'n_neighbors' parameter"),
                            ({"sigma": -0.5}, "'sigma' parameter"),
                            ({"sigma": float("nan")}, "'sigma' parameter"),
                            ({"final_n_init": 0}, "'final_n_init' parameter"),
                            ({"rep_weights": "mass"}, "'rep_weights' parameter"),
                            ({"init": X[:5]}, "'init' parameter"),
                            ({"solver": "magic"}, "'solver' parameter of SpectralClustering")]:
        with pytest.raises(ValueError, match=message):
            SpectralClustering(**params).fit(X)
    # The engine's own refusal (k_c > R), with its message.
    with pytest.raises(ValueError, match="representatives"):
        SpectralClustering(50, n_representatives=20).fit(X)
    with pytest.raises(ValueError, match="NaN"):
        SpectralClustering().fit(np.full((10, 2), np.nan))


def interrupted_after(seconds, work):
    """Runs work() and sends SIGINT to this thread after `seconds`: (latency of the KeyboardInterrupt, run time)."""
    main = threading.get_ident()
    sent = []

    def interrupt():
        time.sleep(seconds)
        sent.append(time.perf_counter())
        signal.pthread_kill(main, signal.SIGINT)
    threading.Thread(target=interrupt, daemon=True).start()
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        work()
    return time.perf_counter() - sent[0], sent[0] - start


@pytest.mark.parametrize("what", ["sweep", "spectral"])
def test_keyboard_interrupt_stops_sweep_and_spectral(what):
    X, _ = blobs(200_000, 4, np.random.default_rng(0).uniform(-10, 10, (40, 4)), 1)
    if what == "sweep":
        def work():
            sweep(X, (100, 400, 100), solver="lloyd", init="random", tol=0, max_iter=100_000, scores="none",
                  random_state=0, n_threads=2)
    else:
        def work():
            SpectralClustering(n_representatives=1000, solver="lloyd", init="random", tol=0, max_iter=100_000,
                               random_state=0, n_threads=2).fit(X)
    latency, ran = interrupted_after(0.4, work)
    assert ran > 0.3  # it was running, not refused
    assert latency < 0.5, f"KeyboardInterrupt took {latency * 1000:.1f} ms"


# ---------------------------------------------------------------- geographic
def wrapped_difference(a, b):
    return (np.asarray(a) - np.asarray(b) + 180.0) % 360.0 - 180.0


@pytest.mark.parametrize("region, frame", [((44, 48, -2, 9), "equirectangular"),   # France-like
                                           ((42, 50, -2, 9), "sphere"),             # scale error 7.5 % > 5 %
                                           ((-5, 5, 100, 125), "equirectangular"),  # around the equator
                                           ((60, 75, 10, 40), "sphere"),            # scale error > 5 %, span 30°
                                           ((-20, 10, 170, 200), "sphere"),         # across the antimeridian
                                           ((-89, 89, -180, 180), "sphere")])       # the globe
def test_geo_round_trip_and_frame_rule(region, frame):
    lat_min, lat_max, lon_min, lon_max = region
    rng = np.random.default_rng(abs(hash(region)) % 1000)
    lat = rng.uniform(lat_min, lat_max, 500)
    lon = (rng.uniform(lon_min, lon_max, 500) + 180.0) % 360.0 - 180.0
    xy, projection = geo_project(lat, lon)
    assert projection.frame == frame, projection.reason
    assert xy.shape == (500, projection.dimensions)
    back = projection.to_degrees(xy)
    np.testing.assert_allclose(back[:, 0], lat, rtol=0, atol=1e-9)
    np.testing.assert_allclose(wrapped_difference(back[:, 1], lon), 0.0, rtol=0, atol=1e-9)
    assert np.all((back[:, 1] >= -180) & (back[:, 1] < 180))
    np.testing.assert_array_equal(geo_unproject(xy, projection), back)
    # An (n, 2) array gives the same as lat and lon; project() reproduces the projection.
    xy2, projection2 = geo_project(np.column_stack([lat, lon]))
    np.testing.assert_array_equal(xy, xy2)
    assert projection2 == projection
    np.testing.assert_array_equal(projection.project(lat, lon), xy)
    if region[2] == 170:
        assert "antimeridian" in projection.reason


def test_geo_equirectangular_is_the_documented_map():
    lat = np.array([45.0, 46.0, 44.0, 45.5])
    lon = np.array([5.0, 6.5, 4.0, 5.5])
    xy, projection = geo_project(lat, lon)
    assert projection.frame == "equirectangular"
    lat0, lon0 = lat.mean(), (4.0 + 6.5) / 2
    assert projection.lat0 == pytest.approx(lat0, abs=1e-12) and projection.lon0 == pytest.approx(lon0, abs=1e-12)
    radians = np.pi / 180
    np.testing.assert_allclose(xy[:, 0], EARTH_RADIUS_KM * np.cos(lat0 * radians) * (lon - lon0) * radians,
                               rtol=1e-12)
    np.testing.assert_allclose(xy[:, 1], EARTH_RADIUS_KM * (lat - lat0) * radians, rtol=1e-12, atol=1e-9)
    sphere, p3 = geo_project(lat, lon, frame="sphere")
    assert p3.frame == "sphere" and "frame='sphere'" in p3.reason
    np.testing.assert_allclose(np.linalg.norm(sphere, axis=1), EARTH_RADIUS_KM, rtol=1e-12)
    np.testing.assert_allclose(sphere[:, 2], EARTH_RADIUS_KM * np.sin(lat * radians), rtol=1e-12)
    # A 3-D centroid inside the sphere comes back on it: the direction's latitude and longitude.
    np.testing.assert_allclose(p3.to_degrees(0.5 * sphere[:1]), [[lat[0], lon[0]]], atol=1e-9)


@needs_cli
def test_geo_kmeans_equals_cli_run_geo(tmp_path):
    spec = "geo-cities:n=1500,k=6,lat_min=42,lat_max=50,lon_min=-2,lon_max=9"
    cli("generate", "--generate", spec, "--seed", 5, "--out", tmp_path / "cities.csv")
    degrees = np.loadtxt(tmp_path / "cities.csv", delimiter=",", comments="#", skiprows=2)
    summary = json_lines(cli("run", "--input", tmp_path / "cities.csv", "--geo", "--k", 6, "--seed", 2, "--n-init", 3,
                             "--solver", "auto", "--empty", "farthest", "--report", "json").stdout)[-1]
    xy, projection = geo_project(degrees)
    km = KMeans(6, random_state=2, n_init=3).fit(xy)
    assert km.inertia_ == summary["inertia"]  # km^2
    assert projection.describe() == summary["geo_projection"]
    np.testing.assert_array_equal(projection.to_degrees(km.cluster_centers_), summary["centroids_degrees"])


def test_geo_out_of_range_values_are_refused_with_the_engines_message():
    with pytest.raises(ValueError, match=r"row 2: latitude 91(\.0+)? is outside \[-90, 90\]"):
        geo_project([[10.0, 20.0], [91.0, 0.0]])
    with pytest.raises(ValueError, match=r"row 3: longitude 180\.5(0*)? is outside \[-180, 180\]"):
        geo_project([1.0, 2.0, 3.0], [0.0, 0.0, 180.5])
    with pytest.raises(ValueError, match="latitude -90.5"):
        geo_project([-90.5], [0.0])
    with pytest.raises(ValueError, match="latitude nan"):
        geo_project([np.nan], [0.0])
    with pytest.raises(ValueError, match="longitude -inf"):
        geo_project([0.0], [-np.inf])
    _, projection = geo_project([45.0, 46.0], [5.0, 6.0])
    with pytest.raises(ValueError, match="latitude 95"):
        projection.project([[45.0, 5.0], [95.0, 5.0]])
    # Boundaries are accepted.
    xy, p = geo_project([90.0, -90.0, 0.0], [180.0, -180.0, 0.0])
    assert p.frame == "sphere" and np.isfinite(xy).all()


def test_geo_bad_arguments():
    with pytest.raises(ValueError, match="frame must be"):
        geo_project([45.0], [5.0], frame="mercator")
    with pytest.raises(ValueError, match=r"\(n, 2\) array"):
        geo_project(np.zeros((4, 3)))
    with pytest.raises(ValueError, match="same length"):
        geo_project([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="no points"):
        geo_project(np.zeros((0, 2)))
    xy, projection = geo_project([45.0, 46.0], [5.0, 6.0])
    with pytest.raises(ValueError, match=r"shape \(m, 2\)"):
        projection.to_degrees(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="mean latitude within 89"):
        geo_project([89.5, 89.9], [0.0, 1.0], frame="equirectangular")
    _, sphere = geo_project([0.0, 0.0], [0.0, 180.0 - 1e-9], frame="sphere")
    with pytest.raises(ValueError, match="centre of the Earth"):
        sphere.to_degrees(np.zeros((1, 3)))
    with pytest.raises(TypeError, match="GeoProjection"):
        geo_unproject(xy, "equirectangular")


def test_package_exports():
    for name in ("sweep", "SweepResult", "SpectralClustering", "geo_project", "geo_unproject", "GeoProjection"):
        assert name in kmeans_studio.__all__ and hasattr(kmeans_studio, name)
