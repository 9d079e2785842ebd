// kmeans_studio._engine: the thin binding over the fit layer. Options arrive as
// the CLI's own "--name value" words and are parsed by the one option table
// (kms/options.hpp), so Python gets the CLI's names, defaults and error messages;
// the estimator logic (scikit-learn's API, input checks, conversions) is Python
// (python/kmeans_studio/). C-contiguous float32 and float64 data is read in place
// (Matrix::view); the engine's errors become ValueError (bad options or input)
// or RuntimeError (anything else). Besides the fit: the k-sweep (kms::sweep),
// spectral clustering (kms::spectral_cluster) and the geographic projection
// (kms::GeoProjection), each the engine's own function behind a thin wrapper.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "kms/backends.hpp"
#include "kms/device_matrix.hpp"
#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/geo.hpp"
#include "kms/io.hpp"
#include "kms/options.hpp"
#include "kms/out_of_core.hpp"
#include "kms/row_source.hpp"
#include "kms/scores.hpp"
#include "kms/solver_support.hpp"
#include "kms/sparse.hpp"
#include "kms/spectral.hpp"
#include "kms/sweep.hpp"
#if KMS_PYTHON_WITH_GPU
#include "kms/gpu_backends.hpp"
#endif
#if KMS_HAVE_DLPACK
#include <dlpack/dlpack.h>
#endif

#ifndef KMS_HAVE_DLPACK
#define KMS_HAVE_DLPACK 0
#endif

namespace py = pybind11;
using namespace kms;

namespace {

using Array64 = py::array_t<double, py::array::c_style>;

// The array's memory, kept alive by a reference to the array; the reference is
// dropped with the GIL held, whichever thread lets the matrix go.
template <typename T>
std::shared_ptr<const Matrix<T>> view_of(const py::array& array, const char* name) {
    if (array.ndim() != 2) throw py::value_error(std::string(name) + " must be a 2-D array");
    if (!py::isinstance<py::array_t<T>>(array) || !(array.flags() & py::array::c_style))
        throw py::value_error(std::string(name) + " must be a C-contiguous array of the engine's dtype");
    auto* keep = new py::object(array);
    std::shared_ptr<const void> owner(keep, [](py::object* o) {
        py::gil_scoped_acquire gil;
        delete o;
    });
    const auto rows = static_cast<std::size_t>(array.shape(0)), cols = static_cast<std::size_t>(array.shape(1));
    return std::make_shared<const Matrix<T>>(
        Matrix<T>::view(rows, cols, static_cast<const T*>(array.data()), std::move(owner)));
}

// --- CUDA arrays (CuPy, PyTorch CUDA tensors, ...): described, never read here.
// The engine reads them in place on the device (kms::DeviceMatrix); the owner
// keeps the Python object (or the DLPack tensor) alive and is released with the GIL.
std::shared_ptr<const void> keep_alive(py::object object) {
    auto* keep = new py::object(std::move(object));
    return std::shared_ptr<const void>(keep, [](py::object* o) {
        py::gil_scoped_acquire gil;
        delete o;
    });
}

void check_shape(std::size_t rows, std::size_t cols, int ndim, const char* name) {
    if (ndim != 2) throw py::value_error(std::string(name) + " must be a 2-D array; got " + std::to_string(ndim) + "-D");
    if (rows == 0 || cols == 0) throw py::value_error(std::string(name) + " is empty (shape " + std::to_string(rows) +
                                                      " x " + std::to_string(cols) + ")");
}

// __cuda_array_interface__ (versions 2 and 3): C-contiguous float32/float64.
std::shared_ptr<const DeviceMatrix> from_cuda_array_interface(const py::object& x, const char* name) {
    const py::dict cai = x.attr("__cuda_array_interface__");
    const py::tuple shape = cai["shape"];
    const std::string type = py::str(cai["typestr"]);
    if (shape.size() != 2) check_shape(0, 0, static_cast<int>(shape.size()), name);
    auto matrix = std::make_shared<DeviceMatrix>();
    matrix->rows = shape[0].cast<std::size_t>();
    matrix->cols = shape[1].cast<std::size_t>();
    check_shape(matrix->rows, matrix->cols, 2, name);
    std::size_t item = 0;
    if (type == "<f8") {
        matrix->element = Precision::F64;
        item = 8;
    } else if (type == "<f4") {
        matrix->element = Precision::F32;
        item = 4;
    } else {
        throw py::value_error(std::string(name) + " must be a float32 or float64 CUDA array; got typestr '" + type + "'");
    }
    if (cai.contains("mask") && !cai["mask"].is_none())
        throw py::value_error(std::string(name) + ": masked CUDA arrays are not supported");
    if (cai.contains("strides") && !cai["strides"].is_none()) {
        const py::tuple strides = cai["strides"];
        if ((matrix->rows > 1 && strides[0].cast<std::size_t>() != matrix->cols * item) ||
            (matrix->cols > 1 && strides[1].cast<std::size_t>() != item))
            throw py::value_error(std::string(name) + " must be a C-contiguous CUDA array (e.g. cupy.ascontiguousarray "
                                  "or tensor.contiguous())");
    }
    const py::tuple data = cai["data"];
    matrix->data = reinterpret_cast<const void*>(data[0].cast<std::uintptr_t>());
    matrix->device = -1;  // the solver reads the device off the address
    matrix->owner = keep_alive(x);
    return matrix;
}

#if KMS_HAVE_DLPACK
// DLPack (x.__dlpack__()): a CUDA tensor of float32/float64, C-contiguous.
std::shared_ptr<const DeviceMatrix> from_dlpack(const py::object& x, const char* name) {
    py::capsule capsule = x.attr("__dlpack__")();
    if (std::string(capsule.name() ? capsule.name() : "") != "dltensor")
        throw py::value_error(std::string(name) + ": __dlpack__ did not return an unused DLPack tensor");
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    if (!managed) throw py::error_already_set();
    // From here the tensor is ours: the capsule is marked used and our owner calls its deleter.
    PyCapsule_SetName(capsule.ptr(), "used_dltensor");
    std::shared_ptr<const void> owner(managed, [](DLManagedTensor* m) {
        py::gil_scoped_acquire gil;
        if (m->deleter) m->deleter(m);
    });
    const DLTensor& t = managed->dl_tensor;
    if (t.device.device_type != kDLCUDA && t.device.device_type != kDLCUDAManaged)
        throw py::value_error(std::string(name) + " is not in CUDA memory (DLPack device type " +
                              std::to_string(static_cast<int>(t.device.device_type)) + ")");
    if (t.ndim != 2) check_shape(0, 0, t.ndim, name);
    auto matrix = std::make_shared<DeviceMatrix>();
    matrix->rows = static_cast<std::size_t>(t.shape[0]);
    matrix->cols = static_cast<std::size_t>(t.shape[1]);
    check_shape(matrix->rows, matrix->cols, 2, name);
    if (t.dtype.code != kDLFloat || t.dtype.lanes != 1 || (t.dtype.bits != 32 && t.dtype.bits != 64))
        throw py::value_error(std::string(name) + " must be a float32 or float64 CUDA tensor");
    matrix->element = t.dtype.bits == 32 ? Precision::F32 : Precision::F64;
    if (t.strides && ((matrix->rows > 1 && t.strides[0] != static_cast<std::int64_t>(matrix->cols)) ||
                      (matrix->cols > 1 && t.strides[1] != 1)))
        throw py::value_error(std::string(name) + " must be a C-contiguous CUDA tensor (tensor.contiguous())");
    matrix->data = static_cast<const char*>(t.data) + t.byte_offset;
    matrix->device = t.device.device_id;
    matrix->owner = std::move(owner);
    return matrix;
}
#endif

constexpr const char* kNoDlpack =
    "this build of kmeans_studio has no DLPack support (configured without dlpack.h; Debian: libdlpack-dev)";

// protocol: "dlpack", "cai" or "auto" (DLPack where this build has it and the
// object offers it, else __cuda_array_interface__).
std::shared_ptr<const DeviceMatrix> device_matrix_of(const py::object& x, const std::string& protocol,
                                                     const char* name) {
    if (protocol != "auto" && protocol != "dlpack" && protocol != "cai")
        throw py::value_error("protocol must be 'auto', 'dlpack' or 'cai'; got '" + protocol + "'");
    const bool has_dlpack = py::hasattr(x, "__dlpack__"), has_cai = py::hasattr(x, "__cuda_array_interface__");
    const bool use_dlpack = protocol == "dlpack" || (protocol == "auto" && KMS_HAVE_DLPACK && has_dlpack);
    if (use_dlpack) {
        if (!has_dlpack) throw py::value_error(std::string(name) + " has no __dlpack__");
#if KMS_HAVE_DLPACK
        return from_dlpack(x, name);
#else
        throw py::value_error(std::string(kNoDlpack) + "; pass an object with __cuda_array_interface__");
#endif
    }
    if (!has_cai && has_dlpack)  // (auto, in a build without dlpack.h)
        throw py::value_error(std::string(kNoDlpack) + " and " + name + " has no __cuda_array_interface__");
    if (!has_cai) throw py::value_error(std::string(name) + " has neither __cuda_array_interface__ nor __dlpack__");
    return from_cuda_array_interface(x, name);
}

Matrix<double> copy_matrix(const py::array& array, const char* name) {
    const Array64 a = Array64::ensure(array);
    if (!a || a.ndim() != 2) throw py::value_error(std::string(name) + " must be a 2-D float64 array");
    return Matrix<double>(static_cast<std::size_t>(a.shape(0)), static_cast<std::size_t>(a.shape(1)),
                          std::vector<double>(a.data(), a.data() + a.size()));
}

std::shared_ptr<const std::vector<double>> weights_of(const py::object& weights) {
    if (weights.is_none()) return nullptr;
    const Array64 w = Array64::ensure(weights);
    if (!w || w.ndim() != 1) throw py::value_error("sample_weight must be a 1-D float64 array");
    return std::make_shared<const std::vector<double>>(w.data(), w.data() + w.size());
}

py::array_t<double> to_numpy(const Matrix<double>& m) {
    py::array_t<double> out({m.rows(), m.cols()});
    std::copy(m.data(), m.data() + m.size(), out.mutable_data());
    return out;
}

py::array_t<std::int32_t> to_numpy(const std::vector<std::int32_t>& v) {
    py::array_t<std::int32_t> out(v.size());
    std::copy(v.begin(), v.end(), out.mutable_data());
    return out;
}

py::dict stats_dict(int restart, const IterationStats& s) {
    py::dict d;
    d["restart"] = restart;
    d["iteration"] = s.iteration;
    d["time_assign_ms"] = s.time_assign_ms;
    d["time_bounds_ms"] = s.time_bounds_ms;
    d["time_update_ms"] = s.time_update_ms;
    d["time_total_ms"] = s.time_total_ms;
    d["point_centroid_distances"] = s.point_centroid_distances;
    d["centroid_centroid_distances"] = s.centroid_centroid_distances;
    d["bound_skips"] = s.bound_skips;
    d["group_skips"] = s.group_skips;
    d["second_centred"] = s.second_centred;
    d["stable_points"] = s.stable_points;
    d["neighbour_clusters"] = s.neighbour_clusters;
    d["labels_changed"] = s.labels_changed;
    d["verified_points"] = s.verified_points;
    d["gemm_certified"] = s.gemm_certified;
    d["gemm_listed"] = s.gemm_listed;
    d["max_shift"] = s.max_shift;
    d["mean_shift"] = s.mean_shift;
    d["shift_sq_total"] = s.shift_sq_total;
    d["empty_clusters"] = s.empty_clusters;
    d["inertia"] = s.inertia;
    return d;
}

FitOptions parse_fit_options(const std::vector<std::string>& args) {
    const ParsedOptions parsed(args, {fit_option_table()});
    return fit_options_from(parsed, false);
}

// Runs `work` on a thread of its own while this (Python) thread, without the GIL,
// checks for signals every 10 ms: Ctrl-C requests `stop` (the fit layer then ends
// within a step's chunk) and, once the work has returned, KeyboardInterrupt is raised.
template <typename Work>
void run_interruptible(std::stop_source& stop, Work work) {
    std::mutex mutex;
    std::condition_variable finished;
    bool done = false;
    std::exception_ptr failure;
    bool interrupted = false;
    {
        py::gil_scoped_release release;
        std::thread worker([&] {
            try {
                work();
            } catch (...) {
                failure = std::current_exception();
            }
            std::lock_guard lock(mutex);
            done = true;
            finished.notify_all();
        });
        std::unique_lock lock(mutex);
        while (!finished.wait_for(lock, std::chrono::milliseconds(10), [&] { return done; })) {
            lock.unlock();
            {
                py::gil_scoped_acquire gil;
                if (!interrupted && PyErr_CheckSignals() != 0) {
                    interrupted = true;  // the exception stays set until we return
                    stop.request_stop();
                }
            }
            lock.lock();
        }
        lock.unlock();
        worker.join();
    }
    if (interrupted) throw py::error_already_set();
    if (failure) std::rethrow_exception(failure);
}

// The fit observer: history records, and the Python callback after each step
// (called with the GIL; False, or an exception, stops the fit).
class PythonObserver : public FitObserver {
public:
    PythonObserver(py::object callback, std::stop_source& stop) : callback_(std::move(callback)), stop_(stop) {}

    void iteration_done(int restart, const IterationStats& stats, const Solver&) override {
        records_.push_back({restart, stats});
        if (callback_.is_none() || error_) return;
        py::gil_scoped_acquire gil;
        try {
            const py::object answer = callback_(stats_dict(restart, stats));
            if (answer.is(py::bool_(false))) {
                stopped_by_callback_ = true;
                stop_.request_stop();
            }
        } catch (py::error_already_set& e) {
            error_ = std::make_unique<py::error_already_set>(std::move(e));
            stop_.request_stop();
        }
    }

    std::vector<std::pair<int, IterationStats>> records_;
    bool stopped_by_callback_ = false;
    std::unique_ptr<py::error_already_set> error_;

private:
    py::object callback_;
    std::stop_source& stop_;
};

// A fit through the one fit layer: `run(options, observer, stop)` returns its FitResult,
// made into the estimator's dict.
template <typename Run>
py::dict fit_with(FitOptions options, const py::object& sample_weight, const py::object& init,
                  const py::object& callback, bool compute_inertia, Run run) {
    if (!init.is_none()) {
        options.init.method = InitMethod::File;
        options.init.given = std::make_shared<const Matrix<double>>(copy_matrix(init, "init"));
    }
    options.sample_weight = weights_of(sample_weight);
    options.solver.compute_inertia = compute_inertia;
    std::stop_source stop;
    PythonObserver observer(callback, stop);
    FitResult result;
    run_interruptible(stop, [&] { result = run(options, observer, stop.get_token()); });
    if (observer.error_) throw std::move(*observer.error_);

    py::dict out;
    out["centroids"] = to_numpy(result.centroids);
    out["initial_centroids"] = to_numpy(result.initial_centroids);
    out["labels"] = to_numpy(result.labels);
    out["inertia"] = result.inertia;
    out["n_iter"] = result.iterations;
    out["stop_reason"] = std::string(to_string(result.stop_reason));
    out["stopped_by_callback"] = observer.stopped_by_callback_;
    out["best_restart"] = result.best_restart;
    out["total_time_ms"] = result.total_time_ms;
    py::list restarts;
    for (const RestartResult& r : result.restarts) {
        py::dict d;
        d["restart"] = r.restart;
        d["seed"] = r.seed;
        d["iterations"] = r.iterations;
        d["stop_reason"] = std::string(to_string(r.stop_reason));
        d["inertia"] = r.inertia;
        d["time_ms"] = r.time_ms;
        restarts.append(d);
    }
    out["restarts"] = restarts;
    // The kept restart's seeding (empty for given centroids): the CLI summary's "init".
    py::dict seeding;
    if (options.init.method != InitMethod::File && !result.restarts.empty()) {
        const InitStats& s = result.restarts[static_cast<std::size_t>(result.best_restart)].init;
        seeding["method"] = std::string(to_string(options.init.method));
        seeding["bounds"] = s.bounded;
        seeding["time_ms"] = s.time_ms;
        seeding["point_centroid_distances"] = s.point_centroid_distances;
        seeding["centroid_centroid_distances"] = s.centroid_centroid_distances;
        seeding["candidates"] = s.candidates;
        seeding["rounds"] = s.rounds;
    }
    out["init"] = seeding;
    py::list history;
    for (const auto& [restart, stats] : observer.records_) history.append(stats_dict(restart, stats));
    out["history"] = history;
    out["solver"] = result.solver.describe();
    out["solver_choice"] = result.solver_choice;
    out["data_address"] = reinterpret_cast<std::uintptr_t>(result.data_address);
    return out;
}

// Fits host (Matrix<double> or Matrix<float>) or device (DeviceMatrix) points.
template <typename Points>
py::dict fit_common(std::shared_ptr<const Points> points, const std::vector<std::string>& args,
                    const py::object& sample_weight, const py::object& init, const py::object& callback,
                    bool compute_inertia) {
    return fit_with(parse_fit_options(args), sample_weight, init, callback, compute_inertia,
                    [&](const FitOptions& options, PythonObserver& observer, std::stop_token stop) {
                        return fit(points, options, &observer, stop, "X");
                    });
}

// A file the CLI reads (.npy, .fvecs, .fbin, ..., or delimited text), fitted by its path:
// read a block at a time on every pass where the CLI's plan says so (kms::plan_out_of_core:
// --out-of-core, --memory-limit among `args`), else loaded as `kmeans-cli run --input`
// loads it. The same values either way, so the same fit, bitwise. The result's
// "out_of_core" says which (the plan's line, or None).
py::dict fit_file_py(const std::string& path, const std::vector<std::string>& args, const py::object& sample_weight,
                     const py::object& init, const py::object& callback, bool compute_inertia) {
    const ParsedOptions parsed(args, {fit_option_table(), out_of_core_option_table()});
    OutOfCoreRequest request = out_of_core_request_from(parsed);
    request.path = path;
    request.weighted = !sample_weight.is_none();
    std::string planned;
    py::dict out = fit_with(fit_options_from(parsed, false), sample_weight, init, callback, compute_inertia,
                            [&](FitOptions& options, PythonObserver& observer, std::stop_token stop) {
                                request.cancel = stop;
                                const std::optional<OutOfCorePlan> plan = plan_out_of_core(request, options);
                                if (!plan) {
                                    LoadOptions load;
                                    load.cancel = stop;
                                    auto points = std::make_shared<const Matrix<double>>(
                                        std::move(load_dataset(path, load).points));
                                    return fit(points, options, &observer, stop, path);
                                }
                                planned = plan->describe();
                                // --solver auto: the plan's choice, whose bounds fit in the limit (as the CLI's run).
                                if (plan->solver_choice) options.solver.algorithm = plan->solver_choice->algorithm;
                                FitResult result = fit(plan->source, plan->buffer_bytes, options, &observer, stop);
                                if (plan->solver_choice) result.solver_choice = plan->solver_choice->reason;
                                return result;
                            });
    out["out_of_core"] = planned.empty() ? py::object(py::none()) : py::object(py::str(planned));
    return out;
}

// The columns of a file fit_file reads, from its header (binary) or first lines (text).
std::size_t file_columns_py(const std::string& path) {
    if (is_binary_matrix_file(path)) return open_matrix_rows(path, false)->cols();
    return text_file_shape(path).cols;
}

// C-contiguous float32 or float64 host data, read in place by the engine (the
// result's data_address is where its solver read the points).
py::dict fit_py(const py::array& x, const std::vector<std::string>& args, const py::object& sample_weight,
                const py::object& init, const py::object& callback, bool compute_inertia) {
    if (py::isinstance<py::array_t<float>>(x))
        return fit_common(view_of<float>(x, "X"), args, sample_weight, init, callback, compute_inertia);
    return fit_common(view_of<double>(x, "X"), args, sample_weight, init, callback, compute_inertia);
}

// CUDA arrays: fitted on the device in place; data_address is the device address the solver read.
py::dict fit_device_py(const py::object& x, const std::vector<std::string>& args, const py::object& sample_weight,
                       const py::object& init, const py::object& callback, bool compute_inertia,
                       const std::string& protocol) {
    return fit_common(device_matrix_of(x, protocol, "X"), args, sample_weight, init, callback, compute_inertia);
}

py::tuple assign_device_py(const py::object& x, const py::array& centroids, const std::vector<std::string>& args,
                           const py::object& sample_weight, const std::string& protocol) {
    auto points = device_matrix_of(x, protocol, "X");
    const FitOptions options = parse_fit_options(args);
    const Matrix<double> c = copy_matrix(centroids, "centroids");
    const auto weights = weights_of(sample_weight);
    const auto address = reinterpret_cast<std::uintptr_t>(points->data);
    Assignment a;
    {
        py::gil_scoped_release release;
        a = assign(points, c, options.solver, weights);
    }
    return py::make_tuple(to_numpy(a.labels), a.inertia, address);
}

// The engine's refusal of "the data" (their range: kms/solver_support.hpp) names them X,
// as a fit's refusal does.
template <typename Work>
auto data_named_x(Work work) {
    try {
        return work();
    } catch (const InputError& error) {
        if (error.source() == "the data") throw InputError::whole("X", error.reason());
        throw;
    }
}

// predict/score: on the CPU back ends the rows go in blocks of about 2^24 distance terms
// (tens of ms), each assigned by kms::assign, so Ctrl-C ends it after the block in
// progress (labels are per point, the same as one call; the inertia is the blocks' sum
// in order). CUDA back ends take one call.
py::tuple assign_py(const py::array& x, const py::array& centroids, const std::vector<std::string>& args,
                    const py::object& sample_weight) {
    const FitOptions options = parse_fit_options(args);
    const Matrix<double> c = copy_matrix(centroids, "centroids");
    const auto weights = weights_of(sample_weight);
    const auto on = [&](auto points) {
        using Points = typename std::decay_t<decltype(*points)>;
        const std::size_t n = points->rows(), d = points->cols();
        const bool blocks = options.solver.backend != Backend::Cuda;
        const std::size_t block =
            blocks ? std::max<std::size_t>(1024, (std::size_t{1} << 24) / std::max<std::size_t>(1, c.rows() * d)) : n;
        std::vector<std::int32_t> labels(n);
        double inertia = 0.0;
        std::stop_source stop;
        run_interruptible(stop, [&] {
            for (std::size_t start = 0; start < n && !stop.stop_requested(); start += block) {
                const std::size_t rows = std::min(block, n - start);
                auto part = rows == n ? points
                                      : std::make_shared<const Points>(Points::view(rows, d, points->data() + start * d,
                                                                                    points));
                std::shared_ptr<const std::vector<double>> part_weights = weights;
                if (weights && rows != n)
                    part_weights = std::make_shared<const std::vector<double>>(
                        weights->begin() + static_cast<std::ptrdiff_t>(start),
                        weights->begin() + static_cast<std::ptrdiff_t>(start + rows));
                const Assignment a = data_named_x([&] { return assign(part, c, options.solver, part_weights); });
                std::copy(a.labels.begin(), a.labels.end(), labels.begin() + static_cast<std::ptrdiff_t>(start));
                inertia += a.inertia;
            }
        });
        return py::make_tuple(to_numpy(labels), inertia, reinterpret_cast<std::uintptr_t>(points->data()));
    };
    if (py::isinstance<py::array_t<float>>(x)) return on(view_of<float>(x, "X"));
    return on(view_of<double>(x, "X"));
}

// What a score refuses, as ValueError: scikit-learn's check of the number of distinct
// labels (in its words), and data whose squared distances leave double's range (a fit's
// check: scores of 1e300 data were NaN or -inf, returned as values).
template <typename Points>
void check_score_inputs(const Points& points, std::span<const std::int32_t> labels) {
    try {
        check_number_of_labels(encode_labels(labels).k(), points.rows());
    } catch (const Error& error) {
        throw py::value_error(error.what());
    }
    data_named_x([&] { check_solver_data(points, Precision::F64); });
}

// A score over float32 or float64 data read in place.
template <typename Score>
py::object on_data(const py::array& x, Score score) {
    if (py::isinstance<py::array_t<float>>(x)) return score(view_of<float>(x, "X"));
    return score(view_of<double>(x, "X"));
}

// --- sparse points (SciPy CSR, kms/sparse.hpp): indptr int64 (n + 1), indices int32,
// data float32 or float64, all C-contiguous and read in place (kept alive by the matrix).
template <typename T>
std::shared_ptr<const SparseMatrix<T>> sparse_view(const py::array& indptr, const py::array& indices,
                                                   const py::array& data, std::size_t rows, std::size_t cols) {
    using Offsets = py::array_t<std::int64_t, py::array::c_style>;
    using Columns = py::array_t<std::int32_t, py::array::c_style>;
    using Values = py::array_t<T, py::array::c_style>;
    if (!py::isinstance<Offsets>(indptr) || !py::isinstance<Columns>(indices) || !py::isinstance<Values>(data))
        throw py::value_error("sparse X: indptr must be int64, indices int32 and data the engine's dtype, C-contiguous");
    if (static_cast<std::size_t>(indptr.size()) != rows + 1)
        throw py::value_error("sparse X: indptr has " + std::to_string(indptr.size()) + " entries for " +
                              std::to_string(rows) + " rows");
    const auto* offsets = static_cast<const std::int64_t*>(indptr.data());
    const auto nnz = static_cast<std::size_t>(offsets[rows]);
    if (offsets[rows] < 0 || static_cast<std::size_t>(indices.size()) < nnz || static_cast<std::size_t>(data.size()) < nnz)
        throw py::value_error("sparse X: indptr[-1] does not match indices and data");
    auto matrix = std::make_shared<SparseMatrix<T>>();
    matrix->rows = rows;
    matrix->cols = cols;
    matrix->indptr = offsets;
    matrix->indices = static_cast<const std::int32_t*>(indices.data());
    matrix->values = static_cast<const T*>(data.data());
    matrix->owner = keep_alive(py::make_tuple(indptr, indices, data));
    return matrix;
}

template <typename Work>
auto on_sparse(const py::array& indptr, const py::array& indices, const py::array& data, std::size_t rows,
               std::size_t cols, Work work) {
    if (py::isinstance<py::array_t<float>>(data)) return work(sparse_view<float>(indptr, indices, data, rows, cols));
    return work(sparse_view<double>(indptr, indices, data, rows, cols));
}

py::dict fit_sparse_py(const py::array& indptr, const py::array& indices, const py::array& data, std::size_t rows,
                       std::size_t cols, const std::vector<std::string>& args, const py::object& sample_weight,
                       const py::object& init, const py::object& callback, bool compute_inertia) {
    return on_sparse(indptr, indices, data, rows, cols, [&](auto points) {
        return fit_common(points, args, sample_weight, init, callback, compute_inertia);
    });
}

py::tuple assign_sparse_py(const py::array& indptr, const py::array& indices, const py::array& data, std::size_t rows,
                           std::size_t cols, const py::array& centroids, const std::vector<std::string>& args,
                           const py::object& sample_weight) {
    const FitOptions options = parse_fit_options(args);
    const Matrix<double> c = copy_matrix(centroids, "centroids");
    const auto weights = weights_of(sample_weight);
    return on_sparse(indptr, indices, data, rows, cols, [&](auto points) {
        std::stop_source stop;
        Assignment a;
        const int threads = options.solver.backend == Backend::Sequential ? 1 : options.solver.threads;
        run_interruptible(stop, [&] { a = assign_sparse(*points, c, threads, weights.get(), stop.get_token()); });
        return py::make_tuple(to_numpy(a.labels), a.inertia);
    });
}

// The seeding alone (kmeans_plusplus): centres and the chosen rows, dense or sparse.
py::tuple initialize_py(const py::object& x, const std::vector<std::string>& args, const py::object& sample_weight,
                        const py::object& sparse_parts, int greedy_trials) {
    const FitOptions options = parse_fit_options(args);
    const auto weights = weights_of(sample_weight);
    std::stop_source stop;
    InitOptions init = options.init;
    init.cancel = stop.get_token();
    init.threads = options.solver.threads;
    if (greedy_trials < 0) throw py::value_error("n_local_trials must be positive");
    init.greedy_trials = greedy_trials;
    if (weights) init.sample_weight = *weights;
    Matrix<double> centres;
    std::vector<std::size_t> chosen;
    if (!sparse_parts.is_none()) {
        const py::tuple parts = sparse_parts;
        on_sparse(parts[0], parts[1], parts[2], parts[3].cast<std::size_t>(), parts[4].cast<std::size_t>(),
                  [&](auto points) {
                      points->check("X");
                      run_interruptible(stop, [&] { centres = initialize_centroids(*points, options.k, init, "X", &chosen); });
                      return 0;
                  });
    } else {
        const py::array array = x;
        const auto dense = [&](auto points) {
            run_interruptible(stop, [&] { centres = initialize_centroids(*points, options.k, init, "X"); });
            return py::none();
        };
        on_data(array, dense);
    }
    py::array_t<std::int64_t> rows(chosen.size());
    std::copy(chosen.begin(), chosen.end(), rows.mutable_data());
    return py::make_tuple(to_numpy(centres), rows);
}

std::vector<std::int32_t> labels_of(const py::array& labels, std::size_t n) {
    const auto l = py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>::ensure(labels);
    if (!l || l.ndim() != 1) throw py::value_error("labels must be a 1-D integer array");
    if (n != static_cast<std::size_t>(-1) && static_cast<std::size_t>(l.size()) != n)
        throw py::value_error("labels has " + std::to_string(l.size()) + " entries, X has " + std::to_string(n) +
                              " samples");
    return {l.data(), l.data() + l.size()};
}

py::dict silhouette_py(const py::array& x, const py::array& labels, const py::object& sample_size,
                       std::uint64_t seed, const std::vector<std::string>& args) {
    const FitOptions options = parse_fit_options(args);
    const std::optional<std::size_t> sample =
        sample_size.is_none() ? std::nullopt : std::optional<std::size_t>(sample_size.cast<std::size_t>());
    std::stop_source stop;
    py::dict out;
    auto compute = [&](auto points) -> py::object {
        const std::vector<std::int32_t> l = labels_of(labels, points->rows());
        check_score_inputs(*points, l);
        SilhouetteResult r;
        ScoreOptions score_options;
        score_options.threads = options.solver.threads;
        score_options.stop = stop.get_token();
        using Points = std::decay_t<decltype(*points)>;
        run_interruptible(stop, [&] {
            if (sample)
                r = silhouette_sampled(*points, l, *sample, seed, score_options);
            else if constexpr (std::is_same_v<Points, Matrix<double>>)
                r = silhouette_for(options.solver, *points, l, stop.get_token());  // the back end's (GPU for cuda)
            else
                r = silhouette(*points, l, score_options);
        });
        out["score"] = r.score;
        out["standard_error"] = r.standard_error;
        out["sampled"] = r.sampled;
        py::array_t<double> values(r.values.size());
        std::copy(r.values.begin(), r.values.end(), values.mutable_data());
        out["values"] = values;
        return py::none();
    };
    on_data(x, compute);
    return out;
}

py::array_t<double> to_numpy(const std::vector<double>& v) {
    py::array_t<double> out(v.size());
    std::copy(v.begin(), v.end(), out.mutable_data());
    return out;
}

py::object k_or_none(const KChoice& choice) { return choice.k ? py::object(py::int_(*choice.k)) : py::object(py::none()); }

// --- the k-sweep (kms/sweep.hpp): what `kmeans-cli sweep` does with the same
// options. `args` are the fit options (no --k), `k_range` "FIRST:LAST[:STEP]",
// `scores` the CLI's --scores (auto | exact | sampled | sampled:N | none).
py::dict sweep_py(const py::array& x, const std::vector<std::string>& args, const std::string& k_range,
                  bool hierarchy, const std::string& scores, const py::object& sample_weight, const py::object& init) {
    const ParsedOptions parsed(args, {fit_option_table()});
    if (parsed.has("--k")) throw py::value_error("a sweep takes k_range, not --k");
    SweepOptions options;
    options.range = parse_k_range(k_range, "k_range");
    options.hierarchy = hierarchy;
    options.fit = fit_options_from(parsed, false);
    if (!init.is_none()) {
        options.fit.init.method = InitMethod::File;
        options.fit.init.given = std::make_shared<const Matrix<double>>(copy_matrix(init, "init"));
    }
    options.fit.k = options.range.last;  // validated as the largest k would be (as the CLI does)
    options.fit.validate();
    ScoreSettings mode_only;
    if (scores != "auto") parse_silhouette_mode("scores", scores, mode_only);
    auto points = view_of<double>(x, "X");
    options.fit.sample_weight = weights_of(sample_weight);
    // The scores of `run --scores` with the silhouette mode asked for: cmd_sweep.cpp's rule.
    options.score_settings = run_score_settings(points->rows(), options.fit.solver, options.fit.init.seed);
    if (scores != "auto") {
        options.score_settings.silhouette = mode_only.silhouette;
        options.score_settings.sample_size = mode_only.sample_size;
    }
    std::stop_source stop;
    SweepResult result;
    run_interruptible(stop, [&] { result = sweep(points, options, nullptr, stop.get_token(), "X"); });

    const std::size_t top = options.range.values().back();
    py::list levels;
    for (const SweepLevel& level : result.levels) {
        const RestartResult* kept = level.fit.restarts.empty()
                                        ? nullptr
                                        : &level.fit.restarts[static_cast<std::size_t>(level.fit.best_restart)];
        py::dict d;
        d["k"] = level.k;
        d["inertia"] = level.fit.inertia;
        d["iterations"] = level.fit.iterations;
        d["stop_reason"] = std::string(to_string(level.fit.stop_reason));
        d["seed"] = kept ? kept->seed : options.fit.init.seed;
        d["start"] = hierarchy && level.k != top ? std::string("merged") : std::string(to_string(options.fit.init.method));
        d["fit_ms"] = level.fit_ms;
        d["scores_ms"] = level.scores_ms;
        d["silhouette"] = level.scores.silhouette;
        d["silhouette_standard_error"] = level.scores.silhouette_standard_error;
        d["silhouette_sample_size"] = level.scores.silhouette_points;
        d["calinski_harabasz"] = level.scores.calinski_harabasz;
        d["davies_bouldin"] = level.scores.davies_bouldin;
        d["solver"] = level.fit.solver.describe();
        d["labels"] = to_numpy(level.fit.labels);
        d["centroids"] = to_numpy(level.fit.centroids);
        d["initial_centroids"] = to_numpy(level.fit.initial_centroids);
        levels.append(d);
    }
    py::dict out;
    out["levels"] = levels;
    out["k_range"] = std::to_string(options.range.first) + ":" + std::to_string(options.range.last) + ":" +
                     std::to_string(options.range.step);
    out["hierarchy"] = hierarchy;
    out["solver"] = options.fit.solver.describe();
    out["elbow_k"] = k_or_none(result.elbow);
    out["elbow_reason"] = result.elbow.reason;
    out["best_silhouette_k"] = k_or_none(result.best_silhouette);
    out["best_calinski_harabasz_k"] = k_or_none(result.best_calinski_harabasz);
    out["best_davies_bouldin_k"] = k_or_none(result.best_davies_bouldin);
    return out;
}

// --- spectral clustering (kms/spectral.hpp): `args` are `kmeans-cli spectral`'s
// options (--k K|auto, --representatives, --neighbours, --sigma, --final-n-init,
// --rep-weights) and the fit options without --k (the representatives' k-means).
py::dict spectral_py(const py::array& x, const std::vector<std::string>& args) {
    const std::vector<OptionSpec> fit_specs = fit_options_without_k();
    const ParsedOptions parsed(args, {spectral_option_table(), fit_specs});
    const SpectralOptions options = spectral_options_from(parsed);
    auto points = view_of<double>(x, "X");
    std::stop_source stop;
    SpectralResult r;
    run_interruptible(stop, [&] { r = spectral_cluster(points, options, {}, stop.get_token(), "X"); });
    if (r.cancelled) throw Error("spectral clustering was cancelled");  // a stop without a signal: not expected

    const FitResult& reps = r.representative_fit;
    py::dict out;
    out["labels"] = to_numpy(r.labels);
    out["k"] = r.clusters;
    out["k_auto"] = r.clusters_chosen;
    out["eigenvalues"] = to_numpy(r.eigen.values);
    out["eigengap"] = r.eigengap;
    out["eigengap_ratio"] = r.eigengap_ratio;
    out["eigensolver"] = r.eigen.method;
    out["eigensolver_note"] = r.eigensolver_note;
    out["representatives"] = r.representatives;
    out["representative_centroids"] = to_numpy(reps.centroids);
    out["representative_of"] = to_numpy(reps.labels);
    out["representative_sizes"] = to_numpy(r.representative_sizes);
    out["representative_labels"] = to_numpy(r.representative_labels);
    out["representatives_solver"] = reps.solver.describe();
    out["representatives_iterations"] = reps.iterations;
    out["representatives_stop_reason"] = std::string(to_string(reps.stop_reason));
    out["representatives_inertia"] = reps.inertia;
    out["neighbours"] = r.neighbours;
    out["graph"] = std::string(r.neighbours ? "knn-symmetrised" : "full");
    out["sigma"] = r.sigma;
    out["sigma_rule"] = r.sigma_rule;
    out["embedding"] = to_numpy(r.embedding);
    out["final_n_init"] = r.final_fit.restarts.size();
    out["final_inertia"] = r.final_fit.inertia;
    py::dict times;
    times["time_representatives_ms"] = r.times.representatives_ms;
    times["time_similarity_ms"] = r.times.similarity_ms;
    times["time_eigensolver_ms"] = r.times.eigensolver_ms;
    times["time_final_kmeans_ms"] = r.times.final_kmeans_ms;
    times["time_labelling_ms"] = r.times.labelling_ms;
    times["time_total_ms"] = r.times.total_ms();
    out["times"] = times;
    return out;
}

// --- geographic data (kms/geo.hpp). Frames by --geo-projection's names.
std::optional<GeoFrame> frame_of(const std::string& name, bool allow_auto) {
    if (name == "equirectangular") return GeoFrame::Equirectangular;
    if (name == "sphere") return GeoFrame::Sphere;
    if (allow_auto && name == "auto") return std::nullopt;
    throw py::value_error("frame must be " + std::string(allow_auto ? "'auto', " : "") +
                          "'equirectangular' or 'sphere'; got '" + name + "'");
}

const char* frame_name(GeoFrame frame) { return frame == GeoFrame::Sphere ? "sphere" : "equirectangular"; }

// The engine's errors about the coordinates (an empty set, an equirectangular map
// centred near a pole, a centroid at the Earth's centre) are about the input: ValueError.
template <typename Work>
auto geo_call(Work work) {
    try {
        return work();
    } catch (const InputError&) {
        throw;
    } catch (const Error& e) {
        throw py::value_error(e.what());
    }
}

// Degrees (n x 2: latitude, longitude), checked (geo_data_from_degrees: the
// loader's range errors) and projected in the frame `frame` (auto: the engine's rule).
py::dict geo_project_py(const py::array& degrees, const std::string& frame) {
    const std::optional<GeoFrame> chosen = frame_of(frame, true);
    return geo_call([&] {
        Dataset data;
        data.name = "lat/lon";
        data.points = copy_matrix(degrees, "degrees");
        GeoOptions options;
        options.enabled = true;
        options.frame = chosen;
        GeoData geo = geo_data_from_degrees(std::move(data), options);
        py::dict out;
        out["projected"] = to_numpy(geo.projected.points);
        out["frame"] = frame_name(geo.projection.frame);
        out["lat0"] = geo.projection.lat0;
        out["lon0"] = geo.projection.lon0;
        out["reason"] = chosen ? "chosen with frame='" + frame + "'" : geo.projection.reason;
        return out;
    });
}

GeoProjection projection_of(const std::string& frame, double lat0, double lon0) {
    GeoProjection projection;
    projection.frame = *frame_of(frame, false);
    projection.lat0 = lat0;
    projection.lon0 = lon0;
    return projection;
}

// More degrees in a given projection (new points to predict): the same range checks.
py::array_t<double> geo_transform_py(const py::array& degrees, const std::string& frame, double lat0, double lon0) {
    const GeoProjection projection = projection_of(frame, lat0, lon0);
    return geo_call([&] {
        Dataset data;
        data.name = "lat/lon";
        data.points = copy_matrix(degrees, "degrees");
        GeoOptions check;  // the checks of geo_data_from_degrees; its frame (any) is not used
        check.enabled = true;
        check.frame = GeoFrame::Sphere;
        const GeoData checked = geo_data_from_degrees(std::move(data), check);
        return to_numpy(projection.project(checked.degrees));
    });
}

py::array_t<double> geo_to_degrees_py(const py::array& projected, const std::string& frame, double lat0, double lon0) {
    const GeoProjection projection = projection_of(frame, lat0, lon0);
    return geo_call([&] { return to_numpy(projection.to_degrees(copy_matrix(projected, "projected"))); });
}

}  // namespace

PYBIND11_MODULE(_engine, m) {
    m.doc() = "kmeans-studio's engine (the fit layer); use kmeans_studio.KMeans";
#if KMS_PYTHON_WITH_GPU
    register_gpu_backends();
#endif
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const UsageError& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        } catch (const InputError& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        } catch (const Error& e) {
            PyErr_SetString(PyExc_RuntimeError, e.what());
        }
    });
    m.def("fit_file", &fit_file_py, py::arg("path"), py::arg("args"), py::arg("sample_weight") = py::none(),
          py::arg("init") = py::none(), py::arg("callback") = py::none(), py::arg("compute_inertia") = false,
          "Fit the file at `path` (the CLI's formats): out of core where the plan says (--out-of-core, "
          "--memory-limit), else loaded");
    m.def("file_columns", &file_columns_py, py::arg("path"));
    m.def("available_memory", [] { return available_memory_bytes(); });
    m.def("parse_byte_size", [](const std::string& text) { return parse_byte_size(text); });
    m.def("fit", &fit_py, py::arg("X"), py::arg("args"), py::arg("sample_weight") = py::none(),
          py::arg("init") = py::none(), py::arg("callback") = py::none(), py::arg("compute_inertia") = false,
          "fit(X, args, sample_weight, init, callback, compute_inertia) -> dict; X C-contiguous float64 (read in "
          "place), args the CLI's fit options");
    m.def("assign", &assign_py, py::arg("X"), py::arg("centroids"), py::arg("args"),
          py::arg("sample_weight") = py::none(), "assign(X, centroids, args, sample_weight) -> (labels, inertia, address)");
    m.def("fit_device", &fit_device_py, py::arg("X"), py::arg("args"), py::arg("sample_weight") = py::none(),
          py::arg("init") = py::none(), py::arg("callback") = py::none(), py::arg("compute_inertia") = false,
          py::arg("protocol") = "auto",
          "fit_device(X, args, ...) -> dict; X a CUDA array (__cuda_array_interface__ or DLPack: CuPy, PyTorch), "
          "C-contiguous float32/float64, clustered on the device in place (protocol: 'auto', 'dlpack' or 'cai')");
    m.def("assign_device", &assign_device_py, py::arg("X"), py::arg("centroids"), py::arg("args"),
          py::arg("sample_weight") = py::none(), py::arg("protocol") = "auto",
          "assign_device(X, centroids, args, sample_weight, protocol) -> (labels, inertia, device address)");
    m.def("fit_sparse", &fit_sparse_py, py::arg("indptr"), py::arg("indices"), py::arg("data"), py::arg("rows"),
          py::arg("cols"), py::arg("args"), py::arg("sample_weight") = py::none(), py::arg("init") = py::none(),
          py::arg("callback") = py::none(), py::arg("compute_inertia") = false,
          "fit_sparse(indptr int64, indices int32, data float32/float64, rows, cols, args, ...) -> dict; CSR X read "
          "in place, Lloyd or Elkan over sparse rows (kms/sparse.hpp)");
    m.def("assign_sparse", &assign_sparse_py, py::arg("indptr"), py::arg("indices"), py::arg("data"), py::arg("rows"),
          py::arg("cols"), py::arg("centroids"), py::arg("args"), py::arg("sample_weight") = py::none(),
          "assign_sparse(CSR parts, rows, cols, centroids, args, sample_weight) -> (labels, inertia)");
    m.def("initialize", &initialize_py, py::arg("X"), py::arg("args"), py::arg("sample_weight") = py::none(),
          py::arg("sparse") = py::none(), py::arg("greedy_trials") = 0,
          "initialize(X, args, sample_weight, sparse=(indptr, indices, data, rows, cols)) -> (centres, chosen rows; "
          "empty for dense X)");
    m.def("has_dlpack", [] { return bool(KMS_HAVE_DLPACK); });
    m.def("algorithms", [] {  // the registered solvers' names, oldest paper first (kms/algorithms.hpp)
        py::list names;
        for (const AlgorithmInfo& info : registered_algorithms()) names.append(std::string(info.algorithm.name()));
        return names;
    });
    m.def("backends", [] {
        py::dict out;
        for (Backend b : all_backends()) {
            const BackendAvailability a = backend_availability(b);
            out[py::str(std::string(to_string(b)))] = py::make_tuple(a.available, a.reason);
        }
        return out;
    });
    m.def("silhouette", &silhouette_py, py::arg("X"), py::arg("labels"), py::arg("sample_size") = py::none(),
          py::arg("seed") = 0, py::arg("args") = std::vector<std::string>{});
    m.def("calinski_harabasz", [](const py::array& x, const py::array& labels) {
        return on_data(x, [&](auto points) {
            const auto l = labels_of(labels, points->rows());
            check_score_inputs(*points, l);
            return py::cast(calinski_harabasz(*points, l));
        });
    });
    m.def("davies_bouldin", [](const py::array& x, const py::array& labels) {
        return on_data(x, [&](auto points) {
            const auto l = labels_of(labels, points->rows());
            check_score_inputs(*points, l);
            return py::cast(davies_bouldin(*points, l));
        });
    });
    m.def("adjusted_rand_index", [](const py::array& truth, const py::array& predicted) {
        const auto t = labels_of(truth, static_cast<std::size_t>(-1));
        return adjusted_rand_index(t, labels_of(predicted, t.size()));
    });
    m.def("normalized_mutual_info", [](const py::array& truth, const py::array& predicted) {
        const auto t = labels_of(truth, static_cast<std::size_t>(-1));
        return normalized_mutual_info(t, labels_of(predicted, t.size()));
    });
    m.def("centroid_index", [](const py::array& predicted, const py::array& truth) {
        const Matrix<double> p = copy_matrix(predicted, "predicted"), t = copy_matrix(truth, "truth");
        if (p.rows() == 0 || t.rows() == 0)
            throw py::value_error("centroid_index needs at least one centroid in each set; got " +
                                  std::to_string(p.rows()) + " and " + std::to_string(t.rows()));
        return centroid_index(p, t);
    });
    m.def("sweep", &sweep_py, py::arg("X"), py::arg("args"), py::arg("k_range"), py::arg("hierarchy") = false,
          py::arg("scores") = "auto", py::arg("sample_weight") = py::none(), py::arg("init") = py::none(),
          "sweep(X, args, k_range, hierarchy, scores, sample_weight, init) -> dict; kms::sweep over C-contiguous "
          "float64 X (read in place), args the CLI's fit options without --k");
    m.def("spectral", &spectral_py, py::arg("X"), py::arg("args"),
          "spectral(X, args) -> dict; kms::spectral_cluster over C-contiguous float64 X, args kmeans-cli spectral's "
          "options");
    m.def("geo_project", &geo_project_py, py::arg("degrees"), py::arg("frame") = "auto",
          "geo_project(degrees n x 2, frame) -> dict(projected, frame, lat0, lon0, reason)");
    m.def("geo_transform", &geo_transform_py, py::arg("degrees"), py::arg("frame"), py::arg("lat0"), py::arg("lon0"));
    m.def("geo_to_degrees", &geo_to_degrees_py, py::arg("projected"), py::arg("frame"), py::arg("lat0"),
          py::arg("lon0"));
    m.attr("EARTH_RADIUS_KM") = kEarthRadiusKm;
}
