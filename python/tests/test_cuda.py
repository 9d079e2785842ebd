"""kmeans_studio on the CUDA back end (skipped where no CUDA device is usable):
the same labels as the CPU and scikit-learn, centroids within 1e-12 (float64),
the GPU silhouette; sample weights (labels = the CPU's weighted fit, centroids
within 1e-9); CUDA arrays (PyTorch CUDA tensors, CuPy arrays, through DLPack and
__cuda_array_interface__) clustered on the device in place: the solver reads
their device address (no host copy of the points), with the host path's results."""
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


@pytest.mark.parametrize("solver", ["lloyd", "hamerly"])
def test_cuda_devices_give_one_devices_bits(solver):
    # Rows split over devices (here blocks of device 0, listed twice, and every device):
    # bitwise the centroids and labels of devices=[0].
    X = blobs(30000, 3, 12, 5)
    one = KMeans(12, solver=solver, backend="cuda", devices=[0], random_state=2, tol=0).fit(X)
    for devices in ([0, 0], "all"):
        split = KMeans(12, solver=solver, backend="cuda", devices=devices, random_state=2, tol=0).fit(X)
        np.testing.assert_array_equal(split.labels_, one.labels_)
        np.testing.assert_array_equal(split.cluster_centers_, one.cluster_centers_)
        assert split.n_iter_ == one.n_iter_


def test_cuda_silhouette_equals_cpu():
    X = blobs(3000, 4, 5, 2)
    labels = KMeans(5, random_state=0).fit_predict(X)
    assert scores.silhouette(X, labels, backend="cuda") == pytest.approx(scores.silhouette(X, labels), rel=1e-10)


def weights_for(n, seed):
    w = np.random.default_rng(seed).uniform(0, 3, n)
    w[3::10] = 0.0
    return w


@pytest.mark.parametrize("solver", ["lloyd", "elkan", "hamerly"])
@pytest.mark.parametrize("shape", [(20000, 3, 6), (12000, 20, 70), (5000, 2, 9)])
def test_cuda_weighted_equals_cpu(solver, shape):
    n, d, k = shape
    X = blobs(n, d, k, 5)
    w = weights_for(n, 6)
    cpu = KMeans(k, solver=solver, backend="omp", random_state=4, tol=0).fit(X, sample_weight=w)
    gpu = KMeans(k, solver=solver, backend="cuda", random_state=4, tol=0).fit(X, sample_weight=w)
    np.testing.assert_array_equal(gpu.labels_, cpu.labels_)
    np.testing.assert_allclose(gpu.cluster_centers_, cpu.cluster_centers_, rtol=0, atol=1e-9 * np.abs(X).max())
    assert gpu.n_iter_ == cpu.n_iter_
    assert gpu.inertia_ == pytest.approx(cpu.inertia_, rel=1e-9)
    assert gpu.score(X, sample_weight=w) == pytest.approx(cpu.score(X, sample_weight=w), rel=1e-9)
    again = KMeans(k, solver=solver, backend="cuda", random_state=4, tol=0).fit(X, sample_weight=w)
    np.testing.assert_array_equal(again.cluster_centers_, gpu.cluster_centers_)  # repeatable bit for bit


def test_cuda_weighted_equals_sklearn():
    sklearn_cluster = pytest.importorskip("sklearn.cluster")
    X = blobs(4000, 3, 5, 8)
    w = weights_for(len(X), 9)
    init = X[:5].copy()
    ours = KMeans(5, backend="cuda", init=init, tol=0, max_iter=100).fit(X, sample_weight=w)
    ref = sklearn_cluster.KMeans(5, init=init, n_init=1, tol=0, max_iter=100, algorithm="lloyd").fit(X, sample_weight=w)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-9, atol=1e-12)


# --------------------------------------------------------------- CUDA arrays
try:
    import torch
    HAVE_TORCH = torch.cuda.is_available()
except ImportError:
    HAVE_TORCH = False
try:
    import cupy
    HAVE_CUPY = cupy.cuda.runtime.getDeviceCount() > 0
except Exception:
    HAVE_CUPY = False
needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch with CUDA is not installed here")
needs_cupy = pytest.mark.skipif(not HAVE_CUPY, reason="CuPy with a CUDA device is not installed here")


class OnlyCudaArrayInterface:
    """A CUDA array seen through __cuda_array_interface__ alone."""

    def __init__(self, array):
        self.array = array
        self.__cuda_array_interface__ = array.__cuda_array_interface__
        self.shape = tuple(array.shape)
        self.dtype = array.dtype


class OnlyDLPack:
    """A CUDA array seen through DLPack alone."""

    def __init__(self, array):
        self.array = array
        self.shape = tuple(array.shape)
        self.dtype = array.dtype

    def __dlpack__(self, *args, **kwargs):
        return self.array.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def device_address(array):
    return array.data_ptr() if HAVE_TORCH and isinstance(array, torch.Tensor) else array.data.ptr


def check_device_fit(device_X, host_X, address, k=7, solver="hamerly", sample_weight=None):
    host_w = sample_weight.cpu().numpy() if hasattr(sample_weight, "cpu") else sample_weight
    host = KMeans(k, solver=solver, backend="cuda", random_state=3, tol=0).fit(host_X, sample_weight=host_w)
    dev = KMeans(k, solver=solver, backend="cuda", random_state=3, tol=0).fit(device_X, sample_weight=sample_weight)
    # The solver read the points at their device address: no host copy of them was made.
    assert dev._data_address_ == address
    assert isinstance(dev.labels_, np.ndarray) and isinstance(dev.cluster_centers_, np.ndarray)
    np.testing.assert_array_equal(dev.labels_, host.labels_)
    np.testing.assert_array_equal(dev.cluster_centers_, host.cluster_centers_)
    assert dev.n_iter_ == host.n_iter_ and dev.cluster_centers_.dtype == host_X.dtype
    np.testing.assert_array_equal(dev.predict(device_X), host.labels_)
    assert dev._predict_address_ == address
    assert dev.score(device_X, sample_weight=sample_weight) == pytest.approx(
        host.score(host_X, sample_weight=host_w), rel=1e-9)
    return dev


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("solver", ["lloyd", "elkan", "hamerly"])
def test_torch_cuda_tensor_clustered_in_place(dtype, solver):
    X = blobs(30000, 4, 7, 11).astype(dtype)
    T = torch.from_numpy(X).to("cuda")
    check_device_fit(T, X, T.data_ptr(), solver=solver)
    w = weights_for(len(X), 12)
    check_device_fit(T, X, T.data_ptr(), solver=solver, sample_weight=w)
    check_device_fit(T, X, T.data_ptr(), solver=solver, sample_weight=torch.from_numpy(w).to("cuda"))


@needs_torch
def test_torch_through_each_protocol():
    X = blobs(20000, 20, 70, 13)  # d = 20, k = 70: Lloyd's shared kernels with the int8 filter
    T = torch.from_numpy(X).to("cuda")
    check_device_fit(OnlyDLPack(T), X, T.data_ptr(), k=70, solver="lloyd")
    check_device_fit(OnlyCudaArrayInterface(T), X, T.data_ptr(), k=70, solver="lloyd")
    result = kmeans_studio._engine.fit_device(T, ["--k", "5", "--backend", "cuda"], protocol="cai")
    assert result["data_address"] == T.data_ptr()


@needs_cupy
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cupy_array_clustered_in_place(dtype):
    X = blobs(25000, 3, 6, 14).astype(dtype)
    C = cupy.asarray(X)
    check_device_fit(C, X, C.data.ptr, k=6)
    check_device_fit(OnlyCudaArrayInterface(C), X, C.data.ptr, k=6, sample_weight=weights_for(len(X), 15))
    check_device_fit(OnlyDLPack(C), X, C.data.ptr, k=6, solver="elkan")


@needs_torch
def test_cuda_array_other_precision_converted_on_device():
    X = blobs(10000, 3, 5, 16).astype(np.float32)
    T = torch.from_numpy(X).to("cuda")
    host = KMeans(5, backend="cuda", precision="f64", random_state=1, tol=0).fit(X)
    dev = KMeans(5, backend="cuda", precision="f64", random_state=1, tol=0).fit(T)
    assert dev._data_address_ not in (0, T.data_ptr())  # a converted copy on the device
    np.testing.assert_array_equal(dev.labels_, host.labels_)
    np.testing.assert_array_equal(dev.cluster_centers_, host.cluster_centers_)


@needs_torch
def test_cuda_array_errors():
    X = blobs(1000, 4, 3, 17)
    T = torch.from_numpy(X).to("cuda")
    with pytest.raises(ValueError, match="C-contiguous"):
        KMeans(3, backend="cuda").fit(T[:, ::2])
    with pytest.raises(ValueError, match="backend='cuda'"):
        KMeans(3, backend="omp").fit(T)
    with pytest.raises(ValueError, match="float32 or float64"):
        KMeans(3, backend="cuda").fit(T.to(torch.int32))
    with pytest.raises(ValueError, match="2D"):
        KMeans(3, backend="cuda").fit(T[:, 0])
    bad = T.clone()
    bad[5, 1] = float("nan")
    with pytest.raises(ValueError, match="NaN"):
        KMeans(3, backend="cuda").fit(bad)
    with pytest.raises(ValueError, match="n_samples=2 should be >= n_clusters=3"):
        KMeans(3, backend="cuda").fit(T[:2])
    fitted = KMeans(3, backend="cuda", random_state=0).fit(T)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(T[:, :3].contiguous())
    with pytest.raises(ValueError, match="host arrays"):
        fitted.transform(T)
