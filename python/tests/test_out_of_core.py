"""KMeans.fit(path): a file the CLI reads, clustered a block at a time (out_of_core='on', or 'auto' under a
small memory_limit) or loaded, each bitwise the fit of the same rows as an array (issue 42)."""
import numpy as np
import pytest

from kmeans_studio import KMeans

# One thread: the plan's reserve (8 MiB a thread and 2 more) is then 24 MiB; 40 kB above it leaves blocks of a
# few hundred rows of these 1,500 (the points, 36 kB, do not fit beside the per-row state).
SMALL_LIMIT = 24 * 2**20 + 40_000


def blobs(n=1500, d=3, centres=5, seed=7):
    rng = np.random.default_rng(seed)
    means = rng.uniform(-10, 10, size=(centres, d))
    return means[rng.integers(0, centres, n)] + rng.normal(size=(n, d))


def assert_same_fit(ours, theirs):
    np.testing.assert_array_equal(ours.labels_, theirs.labels_)
    np.testing.assert_array_equal(ours.cluster_centers_, theirs.cluster_centers_)
    assert ours.inertia_ == theirs.inertia_
    assert ours.n_iter_ == theirs.n_iter_
    assert len(ours.history_) == len(theirs.history_)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ooc")
    X = blobs()
    np.save(folder / "x.npy", X)
    np.savetxt(folder / "x.csv", X, delimiter=",", fmt="%.17g")  # 17 digits: the same doubles parsed back
    return X, folder


@pytest.mark.parametrize("name", ["x.npy", "x.csv"])
def test_fit_path_out_of_core_is_the_array_fit(data, name):
    X, folder = data
    params = dict(n_clusters=5, random_state=3, n_threads=1)
    loaded = KMeans(**params).fit(X)
    forced = KMeans(out_of_core="on", **params).fit(folder / name)
    assert forced.out_of_core_ is not None and "read in blocks" in forced.out_of_core_
    assert_same_fit(forced, loaded)
    automatic = KMeans(memory_limit=SMALL_LIMIT, **params).fit(str(folder / name))
    if name.endswith(".npy"):
        assert automatic.out_of_core_ is not None and "do not fit" in automatic.out_of_core_
    else:  # text out of core holds two windows of at least 1 MiB: more than these 90 kB loaded, so auto loads them
        assert automatic.out_of_core_ is None
    assert_same_fit(automatic, loaded)
    whole = KMeans(**params).fit(str(folder / name))  # auto, the memory available: loaded
    assert whole.out_of_core_ is None
    assert_same_fit(whole, loaded)
    assert forced.n_features_in_ == 3
    np.testing.assert_array_equal(KMeans(out_of_core="on", **params).fit_predict(folder / name), loaded.labels_)


def test_fit_path_weights_and_solvers(data):
    X, folder = data
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(X))
    for solver in ("lloyd", "hamerly"):
        params = dict(n_clusters=5, random_state=4, n_threads=1, solver=solver)
        loaded = KMeans(**params).fit(X, sample_weight=w)
        assert_same_fit(KMeans(out_of_core="on", **params).fit(folder / "x.npy", sample_weight=w), loaded)
    with pytest.raises(ValueError, match="1499"):
        KMeans(n_clusters=5, out_of_core="on").fit(folder / "x.npy", sample_weight=w[:-1])


def test_fit_path_errors(data, tmp_path):
    X, folder = data
    bad = tmp_path / "bad.csv"
    bad.write_text("1,2\n3,4\n5,oops\n7,8\n")
    for when in ("on", "off"):
        with pytest.raises(ValueError) as error:
            KMeans(n_clusters=2, out_of_core=when).fit(bad)
        assert str(bad) in str(error.value) and "3" in str(error.value)
    with pytest.raises(ValueError, match="out_of_core"):
        KMeans(n_clusters=2, out_of_core="sometimes").fit(folder / "x.npy")
    with pytest.raises(ValueError, match="memory_limit"):
        KMeans(n_clusters=2, memory_limit="lots").fit(folder / "x.npy")
    with pytest.raises(ValueError, match=r"leaves nothing.*raise memory_limit"):
        KMeans(n_clusters=2, out_of_core="on", memory_limit="1M").fit(folder / "x.npy")
    fitted = KMeans(n_clusters=5, random_state=0).fit(folder / "x.npy")
    with pytest.raises(ValueError, match=r"fit\(path\)"):
        fitted.predict(folder / "x.npy")
    np.testing.assert_array_equal(fitted.predict(X), fitted.labels_)


def test_large_memmap_that_needs_a_copy_is_refused(tmp_path):
    np.save(tmp_path / "ints.npy", np.arange(64, dtype=np.int32).reshape(32, 2))
    np.save(tmp_path / "floats.npy", blobs(200, 2, 3).astype(np.float32))
    ints, floats = np.load(tmp_path / "ints.npy", mmap_mode="r"), np.load(tmp_path / "floats.npy", mmap_mode="r")
    for X, precision in ((ints, None), (floats, "f64")):  # widened to float64; the engine's float64 copy
        with pytest.raises(ValueError, match=r"would copy.*pass the file's path instead, fit\('.*npy'\)"):
            KMeans(n_clusters=2, memory_limit=400, precision=precision).fit(X)
        KMeans(n_clusters=2, random_state=0, precision=precision).fit(X)  # under the limit: copied as any array
    # read in place: no copy, whatever the limit (its pages come from the file)
    in_place = KMeans(n_clusters=2, random_state=0, memory_limit=400).fit(floats)
    assert in_place._data_address_ == floats.__array_interface__["data"][0]
