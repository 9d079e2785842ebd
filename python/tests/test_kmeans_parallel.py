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


def test_seeding_options_and_their_cost():
    """init_bounds gives the same centres with fewer distances, reported in init_stats_; k-means||'s
    oversampling_factor and init_rounds reach the engine (its candidates and rounds); bad values are
    ValueErrors naming the parameter."""
    import pytest
    X = np.random.default_rng(1).normal(size=(5000, 2)) * 10
    plain = KMeans(600, n_init=1, max_iter=1, random_state=4, init_bounds="off").fit(X)
    bounded = KMeans(600, n_init=1, max_iter=1, random_state=4, init_bounds="on").fit(X)
    assert np.array_equal(plain.cluster_centers_, bounded.cluster_centers_)
    assert plain.init_stats_["method"] == "kmeans++" and not plain.init_stats_["bounds"] and bounded.init_stats_["bounds"]
    assert plain.init_stats_["point_centroid_distances"] == 5000 * 600
    assert bounded.init_stats_["point_centroid_distances"] < plain.init_stats_["point_centroid_distances"] // 4
    assert bounded.init_stats_["centroid_centroid_distances"] > 0
    few = KMeans(20, init="k-means||", n_init=1, max_iter=1, random_state=3, oversampling_factor=0.5, init_rounds=2).fit(X)
    many = KMeans(20, init="k-means||", n_init=1, max_iter=1, random_state=3, oversampling_factor=4.0, init_rounds=6).fit(X)
    assert few.init_stats_["rounds"] <= 2 and many.init_stats_["rounds"] > 2
    assert few.init_stats_["candidates"] < many.init_stats_["candidates"]
    assert KMeans(3, init=np.zeros((3, 2)), n_init=1).fit(X).init_stats_ == {}
    for bad in ({"init_bounds": "sometimes"}, {"init": "k-means||", "oversampling_factor": 0},
                {"init": "k-means||", "init_rounds": 0}):
        name = next(key for key in bad if key != "init")
        with pytest.raises(ValueError, match=name):
            KMeans(3, n_init=1, **bad).fit(X)
