"""kmeans_studio on the CUDA back end (skipped where no CUDA device is usable):
the same labels as the CPU and scikit-learn, centroids within 1e-12 (float64),
the GPU silhouette, and a clear refusal of what the GPU does not take yet."""
import numpy as np
import pytest

import kmeans_studio
from kmeans_studio import KMeans, scores

available, reason = kmeans_studio.backends()["cuda"]
pytestmark = pytest.mark.skipif(not available, reason=f"no usable CUDA back end: {reason}")


def blobs(n, d, centres, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-10, 10, (centres, d))[rng.integers(0, centres, n)] + rng.normal(size=(n, d))


@pytest.mark.parametrize("solver", ["lloyd", "elkan", "hamerly"])
@pytest.mark.parametrize("shape", [(20000, 3, 6), (12000, 20, 70)])
def test_cuda_equals_cpu(solver, shape):
    n, d, k = shape
    X = blobs(n, d, k, 1)
    cpu = KMeans(k, solver=solver, backend="omp", random_state=4, tol=0).fit(X)
    gpu = KMeans(k, solver=solver, backend="cuda", random_state=4, tol=0).fit(X)
    assert gpu.solver_.startswith(f"{solver}/cuda")
    np.testing.assert_array_equal(gpu.labels_, cpu.labels_)
    np.testing.assert_allclose(gpu.cluster_centers_, cpu.cluster_centers_, rtol=0, atol=1e-12 * np.abs(X).max())
    assert gpu.n_iter_ == cpu.n_iter_
    np.testing.assert_array_equal(gpu.predict(X), cpu.labels_)
    assert gpu.score(X) == pytest.approx(cpu.score(X), rel=1e-9)
    f32 = KMeans(k, solver=solver, backend="cuda", random_state=4, tol=0).fit(X.astype(np.float32))
    assert f32.solver_.endswith("/f32") and (f32.labels_ == cpu.labels_).mean() > 0.99


def test_cuda_silhouette_equals_cpu():
    X = blobs(3000, 4, 5, 2)
    labels = KMeans(5, random_state=0).fit_predict(X)
    assert scores.silhouette(X, labels, backend="cuda") == pytest.approx(scores.silhouette(X, labels), rel=1e-10)


def test_cuda_weights_refused_clearly():
    X = blobs(1000, 2, 3, 3)
    with pytest.raises(RuntimeError, match="CUDA back end does not take sample weights yet"):
        KMeans(3, backend="cuda").fit(X, sample_weight=np.random.default_rng(0).uniform(0, 2, len(X)))
