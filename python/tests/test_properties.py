"""Property test of the estimator (issue 39), with Debian's python3-hypothesis: random
shapes, dtypes, scales, weights and parameters. Whatever the input, fit() either refuses
it with ValueError (the documented refusal) or returns a finite result that is whole:
never a crash, a hang or a non-finite success. Skipped where hypothesis is missing."""
import warnings

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import kmeans_studio  # noqa: E402
from kmeans_studio import KMeans  # noqa: E402

SCALES = [1.0, 1e-300, 1e-160, 1e-20, 1e20, 1e150, 1e300]


@st.composite
def problems(draw):
    n = draw(st.integers(1, 40))
    d = draw(st.integers(1, 4))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    seed = draw(st.integers(0, 2**32 - 1))
    scale = draw(st.sampled_from(SCALES))
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore"):
        X = (rng.normal(size=(n, d)) * scale).astype(dtype)  # float32 overflow to inf is a refusal case
    weights = None
    kind = draw(st.sampled_from(["none", "random", "tiny", "huge", "zeros-some"]))
    if kind == "random":
        weights = rng.uniform(0.0, 3.0, size=n)
    elif kind == "tiny":
        weights = np.full(n, 1e-320)
    elif kind == "huge":
        weights = np.full(n, 1e307)
    elif kind == "zeros-some":
        weights = rng.integers(0, 2, size=n).astype(np.float64)
    params = dict(
        n_clusters=draw(st.integers(1, max(1, min(n, 5)))),
        solver=draw(st.sampled_from([*kmeans_studio._engine.algorithms(), "auto"])),
        init=draw(st.sampled_from(["k-means++", "random"])),
        n_init=draw(st.integers(1, 2)),
        max_iter=draw(st.integers(1, 30)),
        random_state=draw(st.integers(0, 1000)),
        n_threads=draw(st.sampled_from([None, 1, 2])),
    )
    return X, weights, params


@settings(max_examples=80, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_fit_refuses_or_returns_a_finite_whole_result(problem):
    X, weights, params = problem
    model = KMeans(**params)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning on duplicate points
        try:
            model.fit(X, sample_weight=weights)
        except ValueError:
            return  # a refusal, with its message: fine
    k = params["n_clusters"]
    assert model.cluster_centers_.shape == (k, X.shape[1])
    assert np.all(np.isfinite(model.cluster_centers_)), "non-finite centroids reported as success"
    assert np.isfinite(model.inertia_) and model.inertia_ >= 0.0
    assert model.labels_.shape == (X.shape[0],)
    assert model.labels_.min() >= 0 and model.labels_.max() < k
    assert 1 <= model.n_iter_ <= params["max_iter"]
