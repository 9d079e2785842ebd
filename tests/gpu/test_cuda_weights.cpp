// Sample weights on the CUDA back end, and points handed over in device memory
// (kms::DeviceMatrix). Skips (with the reason) where there is no CUDA build or device.
//
// weighted, double: every CUDA solver (Lloyd, Elkan, Hamerly × global/shared) has
//         the labels of the CPU OpenMP weighted Lloyd at every iteration, centroids
//         within 1e-9 (relative to the data's scale), the same empty-cluster
//         counts, weighted inertia within 1e-9; with zero weights, integer weights
//         and the Farthest policy (weighted relocation).
// weighted, float: every CUDA solver bitwise equal to CUDA Lloyd global f32.
// Repeatable: a weighted run gives the same bits twice; unit weights on the
// general update path give the unweighted bits.
// fit(): weighted CUDA fit = weighted OpenMP fit (seeding is the CPU's, see
// kms/cuda_init.hpp). Device data: fit(DeviceMatrix) = fit(Matrix) bit for bit,
// the solver reads the device address in place (same precision) or a converted
// copy, errors are clear.
// KMS_GPU_TEST_SMALL=1 shrinks every case (for compute-sanitizer runs).
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#if KMS_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "kms/backends.hpp"
#include "kms/device_matrix.hpp"
#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/gpu_backends.hpp"
#include "kms/solver.hpp"
#include "test_support.hpp"

namespace {

using kms::Algorithm;
using kms::Matrix;
using kms::Precision;

bool small_mode() { return kms::test::gpu_small_mode(); }

struct Case {
    std::string name;
    std::size_t n, d, k;
    int iterations;
    kms::EmptyClusterPolicy policy = kms::EmptyClusterPolicy::Keep;
    bool integer_weights = false;
    bool duplicates = false;  // every point twice, initial centroids in equal pairs (empty clusters)
};

std::shared_ptr<Matrix<double>> make_points(const Case& c, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_real_distribution<double> uniform(-10.0, 10.0);
    auto points = std::make_shared<Matrix<double>>(c.n, c.d);
    const std::size_t centers = std::max<std::size_t>(1, std::min<std::size_t>(c.k, 12));
    std::vector<double> center(centers * c.d);
    for (double& v : center) v = uniform(rng);
    for (std::size_t i = 0; i < c.n; ++i) {
        if (c.duplicates && i % 2 == 1) {
            for (std::size_t j = 0; j < c.d; ++j) (*points)(i, j) = (*points)(i - 1, j);
            continue;
        }
        for (std::size_t j = 0; j < c.d; ++j) (*points)(i, j) = center[(i % centers) * c.d + j] + 1.5 * normal(rng);
    }
    return points;
}

// Weights in [0, 3) with a tenth exactly 0, or integers 0..4.
std::shared_ptr<std::vector<double>> make_weights(const Case& c, std::uint64_t seed) {
    std::mt19937_64 rng(seed * 7 + 3);
    std::uniform_real_distribution<double> uniform(0.0, 3.0);
    std::uniform_int_distribution<int> integer(0, 4);
    auto w = std::make_shared<std::vector<double>>(c.n);
    for (std::size_t i = 0; i < c.n; ++i) {
        (*w)[i] = c.integer_weights ? integer(rng) : (i % 10 == 3 ? 0.0 : uniform(rng));
    }
    (*w)[0] = 1.0;  // never all zero
    return w;
}

Matrix<double> initial_centroids(const Case& c, const Matrix<double>& points, std::uint64_t seed) {
    std::mt19937_64 rng(seed ^ 0x5bd1e995u);
    std::vector<std::size_t> rows(points.rows());
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
    std::shuffle(rows.begin(), rows.end(), rng);
    Matrix<double> out(c.k, c.d);
    for (std::size_t r = 0; r < c.k; ++r) {
        const std::size_t source = c.duplicates ? rows[r / 2] : rows[r];
        for (std::size_t j = 0; j < c.d; ++j) out(r, j) = points(source, j);
    }
    return out;
}

std::unique_ptr<kms::Solver> make(Algorithm a, kms::Backend b, kms::KernelVariant v, Precision p, const Case& c) {
    kms::SolverConfig config;
    config.algorithm = a;
    config.backend = b;
    config.variant = v;
    config.precision = p;
    config.max_iterations = 1000;
    config.tol = 0.0;
    config.empty_policy = c.policy;
    config.compute_inertia = true;
    return kms::make_solver(config);
}

double max_relative_difference(const Matrix<double>& a, const Matrix<double>& b, double scale) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a.data()[i] - b.data()[i]) / scale);
    return worst;
}

double data_scale(const Matrix<double>& points) {
    double m = 1e-300;
    for (double v : points.values()) m = std::max(m, std::abs(v));
    return m;
}

std::vector<Case> cases() {
    const bool small = small_mode();
    auto n = [&](std::size_t big, std::size_t tiny) { return small ? tiny : big; };
    return {
        {"d=2 k=5 (small shape)", n(100000, 2000), 2, 5, 6},
        {"d=3 k=7 integer weights (small shape)", n(20000, 1000), 3, 7, 6, kms::EmptyClusterPolicy::Keep, true},
        {"d=2 k=9", n(20000, 1000), 2, 9, 6},
        {"d=70 k=30", n(20000, 600), 70, 30, 5},
        {"d=33 k=12 (small-k kernel)", n(15000, 500), 33, 12, 5},
        {"d=33 k=300", n(30000, 900), 33, 300, 4},
        {"d=20 k=70 (int8 filter)", n(12000, 700), 20, 70, 4},
        {"duplicates farthest", n(4000, 300), 3, 10, 5, kms::EmptyClusterPolicy::Farthest, false, true},
        {"duplicates farthest integer weights small", n(4000, 300), 2, 8, 5, kms::EmptyClusterPolicy::Farthest, true,
         true},
        {"n=1 k=1", 1, 1, 1, 2},
    };
}

// Every solver registered on the CUDA back end (kms/algorithms.hpp), Lloyd first; asked once
// the GPU's registrations ran (initTestCase).
const std::vector<Algorithm>& cuda_algorithms() {
    static const std::vector<Algorithm> list = kms::test::registered_solvers(kms::Backend::Cuda);
    return list;
}
const kms::KernelVariant kVariants[] = {kms::KernelVariant::Global, kms::KernelVariant::Shared};

#if KMS_HAVE_CUDA
// Device memory holding a copy of host values (what a CuPy array or a PyTorch tensor owns).
template <typename U>
std::shared_ptr<const kms::DeviceMatrix> to_device(const Matrix<double>& points) {
    std::vector<U> values(points.size());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<U>(points.data()[i]);
    void* raw = nullptr;
    if (cudaMalloc(&raw, values.size() * sizeof(U)) != cudaSuccess) throw kms::Error("cudaMalloc failed");
    std::shared_ptr<void> memory(raw, [](void* p) { cudaFree(p); });
    if (cudaMemcpy(raw, values.data(), values.size() * sizeof(U), cudaMemcpyHostToDevice) != cudaSuccess)
        throw kms::Error("cudaMemcpy failed");
    auto m = std::make_shared<kms::DeviceMatrix>();
    m->data = raw;
    m->rows = points.rows();
    m->cols = points.cols();
    m->element = std::is_same_v<U, float> ? Precision::F32 : Precision::F64;
    m->device = 0;
    m->owner = memory;
    return m;
}
#endif

}  // namespace

class TestCudaWeights : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        kms::register_gpu_backends();
        const kms::BackendAvailability availability = kms::backend_availability(kms::Backend::Cuda);
        if (!availability.available) QSKIP(qPrintable(QString("no CUDA device: ") + availability.reason.c_str()));
    }

    void weightedDoubleMatchesCpu() {
        int seed = 1;
        for (const Case& c : cases()) {
            const auto points = make_points(c, static_cast<std::uint64_t>(seed));
            const auto weights = make_weights(c, static_cast<std::uint64_t>(seed));
            const Matrix<double> start = initial_centroids(c, *points, static_cast<std::uint64_t>(seed++));
            const double scale = data_scale(*points);
            auto cpu = make(Algorithm::Lloyd, kms::Backend::OpenMP, kms::KernelVariant::Auto, Precision::F64, c);
            cpu->set_data(points);
            cpu->set_sample_weight(weights);
            cpu->set_initial_centroids(start);
            std::vector<std::unique_ptr<kms::Solver>> gpus;
            for (Algorithm a : cuda_algorithms())
                for (kms::KernelVariant v : kVariants) {
                    gpus.push_back(make(a, kms::Backend::Cuda, v, Precision::F64, c));
                    gpus.back()->set_data(points);
                    gpus.back()->set_sample_weight(weights);
                    gpus.back()->set_initial_centroids(start);
                }
            for (int it = 1; it <= c.iterations; ++it) {
                const kms::IterationStats reference = cpu->step();
                for (auto& gpu : gpus) {
                    const kms::IterationStats stats = gpu->step();
                    const std::string where = c.name + " / " + gpu->config().describe() + " / iteration " +
                                              std::to_string(it);
                    QVERIFY2(gpu->labels() == cpu->labels(), ("labels differ from CPU weighted Lloyd: " + where).c_str());
                    const double diff = max_relative_difference(gpu->centroids(), cpu->centroids(), scale);
                    QVERIFY2(diff <= 1e-9, (where + ": centroid difference " + std::to_string(diff)).c_str());
                    QCOMPARE(stats.empty_clusters, reference.empty_clusters);
                    QCOMPARE(stats.labels_changed, reference.labels_changed);
                    QVERIFY2(std::abs(stats.inertia - reference.inertia) <= 1e-9 * std::max(1.0, reference.inertia),
                             (where + ": inertia " + std::to_string(stats.inertia) + " vs " +
                              std::to_string(reference.inertia))
                                 .c_str());
                }
            }
            for (auto& gpu : gpus)
                QVERIFY(std::abs(gpu->inertia() - cpu->inertia()) <= 1e-9 * std::max(1.0, cpu->inertia()));
        }
    }

    void weightedFloatBitwiseAcrossSolvers() {
        int seed = 50;
        for (const Case& c : cases()) {
            const auto points = make_points(c, static_cast<std::uint64_t>(seed));
            const auto weights = make_weights(c, static_cast<std::uint64_t>(seed));
            const Matrix<double> start = initial_centroids(c, *points, static_cast<std::uint64_t>(seed++));
            auto reference = make(Algorithm::Lloyd, kms::Backend::Cuda, kms::KernelVariant::Global, Precision::F32, c);
            auto cpu = make(Algorithm::Lloyd, kms::Backend::OpenMP, kms::KernelVariant::Auto, Precision::F32, c);
            std::vector<std::unique_ptr<kms::Solver>> gpus;
            for (Algorithm a : cuda_algorithms())
                for (kms::KernelVariant v : kVariants)
                    if (a != Algorithm::Lloyd || v != kms::KernelVariant::Global)
                        gpus.push_back(make(a, kms::Backend::Cuda, v, Precision::F32, c));
            gpus.push_back(std::move(cpu));
            for (auto* s : {reference.get()}) {
                s->set_data(points);
                s->set_sample_weight(weights);
                s->set_initial_centroids(start);
            }
            for (auto& s : gpus) {
                s->set_data(points);
                s->set_sample_weight(weights);
                s->set_initial_centroids(start);
            }
            for (int it = 1; it <= std::min(c.iterations, 3); ++it) {
                reference->step();
                for (auto& gpu : gpus) {
                    gpu->step();
                    const std::string where = c.name + " / " + gpu->config().describe() + " / iteration " +
                                              std::to_string(it);
                    if (gpu->config().backend != kms::Backend::Cuda) {
                        // The CPU's float update sums in another order: close, not bitwise.
                        std::size_t differ = 0;
                        for (std::size_t i = 0; i < c.n; ++i) differ += gpu->labels()[i] != reference->labels()[i];
                        QVERIFY2(differ <= 1 + c.n / 500, (where + ": " + std::to_string(differ)).c_str());
                        continue;
                    }
                    QVERIFY2(gpu->labels() == reference->labels(), ("f32 labels differ: " + where).c_str());
                    QVERIFY2(gpu->centroids() == reference->centroids(), ("f32 centroids differ: " + where).c_str());
                }
            }
        }
    }

    void weightedRepeatableAndUnitWeights() {
        const Case general{"d=6 k=20", small_mode() ? 3000u : 60000u, 6, 20, 5};
        const auto points = make_points(general, 77);
        const auto weights = make_weights(general, 77);
        const auto ones = std::make_shared<std::vector<double>>(general.n, 1.0);
        const Matrix<double> start = initial_centroids(general, *points, 77);
        for (Precision p : {Precision::F64, Precision::F32})
            for (Algorithm a : cuda_algorithms()) {
                auto first = make(a, kms::Backend::Cuda, kms::KernelVariant::Auto, p, general);
                auto second = make(a, kms::Backend::Cuda, kms::KernelVariant::Auto, p, general);
                auto unit = make(a, kms::Backend::Cuda, kms::KernelVariant::Auto, p, general);
                auto plain = make(a, kms::Backend::Cuda, kms::KernelVariant::Auto, p, general);
                for (auto* s : {first.get(), second.get(), unit.get(), plain.get()}) s->set_data(points);
                first->set_sample_weight(weights);
                second->set_sample_weight(weights);
                unit->set_sample_weight(ones);
                for (auto* s : {first.get(), second.get(), unit.get(), plain.get()}) s->set_initial_centroids(start);
                for (int it = 0; it < general.iterations; ++it) {
                    const kms::IterationStats a1 = first->step(), a2 = second->step();
                    QVERIFY(first->labels() == second->labels());
                    QVERIFY(first->centroids() == second->centroids());
                    QCOMPARE(a1.inertia, a2.inertia);
                    const kms::IterationStats u = unit->step(), q = plain->step();
                    QVERIFY(unit->labels() == plain->labels());
                    QVERIFY2(unit->centroids() == plain->centroids(), "unit weights change the centroid bits");
                    QCOMPARE(u.inertia, q.inertia);
                }
                first->reset();  // a reset run repeats itself too
                first->step();
                second->reset();
                second->step();
                QVERIFY(first->centroids() == second->centroids());
            }
    }

    // The fit layer: seeding (the CPU's weighted k-means++, see kms/cuda_init.hpp),
    // restarts, the final relabel; CUDA = OpenMP in double.
    void weightedFitMatchesCpu() {
        const Case c{"fit", small_mode() ? 2000u : 30000u, 3, 6, 0};
        const auto points = make_points(c, 11);
        const auto weights = make_weights(c, 11);
        for (Algorithm a : cuda_algorithms()) {
            kms::FitOptions options;
            options.k = c.k;
            options.n_init = 2;
            options.init.seed = 5;
            options.sample_weight = weights;
            options.solver.algorithm = a;
            options.solver.precision = Precision::F64;
            options.solver.empty_policy = kms::EmptyClusterPolicy::Farthest;
            options.solver.backend = kms::Backend::OpenMP;
            const kms::FitResult cpu = kms::fit(points, options);
            options.solver.backend = kms::Backend::Cuda;
            const kms::FitResult gpu = kms::fit(points, options);
            QVERIFY(gpu.initial_centroids == cpu.initial_centroids);
            QCOMPARE(gpu.best_restart, cpu.best_restart);
            QCOMPARE(gpu.iterations, cpu.iterations);
            QVERIFY(gpu.labels == cpu.labels);
            QVERIFY(max_relative_difference(gpu.centroids, cpu.centroids, data_scale(*points)) <= 1e-9);
            QVERIFY(std::abs(gpu.inertia - cpu.inertia) <= 1e-9 * cpu.inertia);
            const kms::Assignment on_gpu = kms::assign(points, cpu.centroids, options.solver, weights);
            options.solver.backend = kms::Backend::OpenMP;
            const kms::Assignment on_cpu = kms::assign(points, cpu.centroids, options.solver, weights);
            QVERIFY(on_gpu.labels == on_cpu.labels);
            QVERIFY(std::abs(on_gpu.inertia - on_cpu.inertia) <= 1e-9 * on_cpu.inertia);
        }
    }

    // Points in device memory: the same fit as from the host, the device address
    // read in place where the element type is the precision.
    void deviceDataEqualsHostData() {
#if KMS_HAVE_CUDA
        for (const Case& c : {Case{"device", small_mode() ? 3000u : 50000u, 2, 9, 0},
                              Case{"device-wide", small_mode() ? 2000u : 20000u, 20, 70, 0}}) {
            const auto points = make_points(c, 21);
            const auto weights = make_weights(c, 21);
            // float data: the host path's values are the floats widened to double.
            const auto as_float = std::make_shared<Matrix<double>>(points->cast<float>().cast<double>());
            for (Precision element : {Precision::F64, Precision::F32})
                for (Precision p : {Precision::F64, Precision::F32})
                    for (bool weighted : {false, true}) {
                        const auto host = element == Precision::F64 ? points : as_float;
                        const auto device = element == Precision::F64 ? to_device<double>(*host) : to_device<float>(*host);
                        kms::FitOptions options;
                        options.k = c.k;
                        options.n_init = 2;
                        options.init.seed = 3;
                        options.solver.algorithm = Algorithm::Hamerly;
                        options.solver.backend = kms::Backend::Cuda;
                        options.solver.precision = p;
                        options.solver.tol = 1e-4;
                        options.solver.empty_policy = kms::EmptyClusterPolicy::Farthest;
                        if (weighted) options.sample_weight = weights;
                        const kms::FitResult from_host = kms::fit(host, options);
                        const kms::FitResult from_device = kms::fit(device, options);
                        const std::string where = c.name + " element " + std::string(kms::to_string(element)) +
                                                  " precision " + std::string(kms::to_string(p)) +
                                                  (weighted ? " weighted" : "");
                        QVERIFY2(from_device.initial_centroids == from_host.initial_centroids, where.c_str());
                        QVERIFY2(from_device.labels == from_host.labels, where.c_str());
                        QVERIFY2(from_device.centroids == from_host.centroids, where.c_str());
                        QCOMPARE(from_device.iterations, from_host.iterations);
                        if (element == p)
                            QVERIFY2(from_device.data_address == device->data, ("not read in place: " + where).c_str());
                        else
                            QVERIFY2(from_device.data_address != device->data && from_device.data_address != nullptr,
                                     where.c_str());
                        const kms::Assignment a = kms::assign(device, from_host.centroids, options.solver);
                        QVERIFY2(a.labels == from_host.labels, where.c_str());
                    }
            // Lloyd and Elkan read it too, and the int8 filter path (Lloyd shared, d = 20, k = 70).
            for (Algorithm a : {Algorithm::Lloyd, Algorithm::Elkan}) {
                kms::FitOptions options;
                options.k = c.k;
                options.init.seed = 4;
                options.solver.algorithm = a;
                options.solver.backend = kms::Backend::Cuda;
                options.solver.variant = kms::KernelVariant::Shared;
                const kms::FitResult from_host = kms::fit(points, options);
                // Device not said (-1, as __cuda_array_interface__ gives it): read off the address.
                auto unsaid = std::make_shared<kms::DeviceMatrix>(*to_device<double>(*points));
                unsaid->device = -1;
                const kms::FitResult from_device = kms::fit(std::shared_ptr<const kms::DeviceMatrix>(unsaid), options);
                QVERIFY(from_device.data_address == unsaid->data);
                QVERIFY(from_device.labels == from_host.labels);
                QVERIFY(from_device.centroids == from_host.centroids);
            }
        }
#else
        QSKIP("no CUDA build");
#endif
    }

    void errors() {
#if KMS_HAVE_CUDA
        const Case c{"errors", 100, 2, 3, 0};
        auto points = make_points(c, 5);
        kms::FitOptions options;
        options.k = 3;
        options.solver.backend = kms::Backend::OpenMP;
        try {
            kms::fit(to_device<double>(*points), options);
            QFAIL("the OpenMP back end took device data");
        } catch (const kms::Error& error) {
            QVERIFY2(std::string(error.what()).find("--backend cuda") != std::string::npos, error.what());
        }
        options.solver.backend = kms::Backend::Cuda;
        (*points)(17, 1) = std::nan("");
        try {
            kms::fit(to_device<double>(*points), options);
            QFAIL("NaN in device data accepted");
        } catch (const kms::Error& error) {
            QVERIFY2(std::string(error.what()).find("NaN") != std::string::npos, error.what());
        }
        (*points)(17, 1) = 0.0;
        // A host address is not device memory.
        auto fake = std::make_shared<kms::DeviceMatrix>();
        fake->data = points->data();
        fake->rows = points->rows();
        fake->cols = points->cols();
        fake->owner = points;
        QVERIFY_THROWS_EXCEPTION(kms::Error, kms::fit(fake, options));
        // Weights of the wrong length are refused before any work.
        auto solver = kms::make_solver(options.solver);
        solver->set_data(points);
        QVERIFY_THROWS_EXCEPTION(kms::Error, solver->set_sample_weight(std::make_shared<std::vector<double>>(5, 1.0)));
#else
        QSKIP("no CUDA build");
#endif
    }
};

QTEST_APPLESS_MAIN(TestCudaWeights)
#include "test_cuda_weights.moc"
