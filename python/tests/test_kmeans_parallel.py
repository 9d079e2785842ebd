"""init='k-means||' (issue 41): the engine's k-means‖ from Python, the same centres for any thread count
and a final inertia close to k-means++'s."""
import numpy as np

from kmeans_studio import KMeans


def test_kmeans_parallel_init():
    X = np.random.default_rng(0).normal(size=(6000, 2))
    a = KMeans(20, init="k-means||", n_init=1, random_state=3, n_threads=1).fit(X)
    b = KMeans(20, init="k-means||", n_init=1, random_state=3, n_threads=2).fit(X)
    assert np.array_equal(a.cluster_centers_, b.cluster_centers_)
    c = KMeans(20, init="k-means++", n_init=1, random_state=3).fit(X)
    assert abs(a.inertia_ / c.inertia_ - 1) < 0.05
