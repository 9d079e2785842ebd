// Run by mpiexec with 1, 2 and 3 ranks (tests/cmake/mpi.cmake): every CPU solver on
// its rank's block of a data set gives, at every iteration, the bits of one solver
// on all rows (centroids, inertia, counts, stop decision, the block's labels). Every
// rank generates the same data and runs the single-process reference itself, then
// the partitioned run over MPI_COMM_WORLD (and k-means‖ seeding over the blocks); the failures are summed over the ranks
// and rank 0 prints the verdict. Exit 0 only when every rank saw every bit equal.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "kms/backends.hpp"
#include "kms/communicator.hpp"
#include "kms/error.hpp"
#include "kms/generate.hpp"
#include "kms/init.hpp"
#include "kms/random.hpp"
#include "mpi_communicator.hpp"

using namespace kms;

namespace {

struct Shape {
    const char* spec;
    std::size_t k;
    std::uint64_t seed;
};

std::unique_ptr<Solver> make(Algorithm algorithm, Precision precision, Backend backend) {
    SolverConfig config;
    config.algorithm = algorithm;
    config.backend = backend;
    config.precision = precision;
    config.threads = 1;  // ranks oversubscribe the cores already (test_solvers runs OpenMP teams inside ranks)
    config.tol = 1e-6;
    config.max_iterations = 15;
    config.empty_policy = EmptyClusterPolicy::Farthest;
    return make_solver(config);
}

}  // namespace

int main() {
    std::shared_ptr<Communicator> world;
    try {
        world = mpi_world();
    } catch (const Error& e) {
        std::fprintf(stderr, "test_mpi_partition: %s\n", e.what());
        return 1;
    }
    const int rank = world->rank(), ranks = world->size();
    std::uint64_t failures = 0, checks = 0;
    const auto fail = [&](const std::string& what) {
        ++failures;
        if (failures <= 5) std::fprintf(stderr, "rank %d: %s\n", rank, what.c_str());
    };
    // One machine: the launcher's local rank is the world rank (how ranks pick their GPU).
    ++checks;
    if (launcher_local_rank() != rank)
        fail("launcher_local_rank() " + std::to_string(launcher_local_rank()) + ", world rank " + std::to_string(rank));
    const Shape shapes[] = {
        {"blobs:n=18000,k=7,d=2,spread=0.05", 9, 3},
        {"uniform:n=9000,d=5", 16, 4},
        {"blobs:n=5000,k=3,d=3,spread=0.2", 5, 5},
    };
    std::vector<Algorithm> algorithms;  // every registered solver (kms/algorithms.hpp)
    for (const AlgorithmInfo& info : registered_algorithms()) algorithms.push_back(info.algorithm);
    try {
        int combination = 0;
        for (const Shape& shape : shapes) {
            const auto points = std::make_shared<const Matrix<double>>(generate_dataset(shape.spec, shape.seed).points);
            const std::size_t n = points->rows(), d = points->cols();
            Matrix<double> initial(shape.k, d);
            for (std::size_t c = 0; c < shape.k; ++c) {
                const std::size_t row = random_below(shape.seed, 9, c, n);
                for (std::size_t t = 0; t < d; ++t) initial(c, t) = (*points)(row, t) + (c % 4 == 3 ? 50.0 : 0.0);
            }
            std::vector<double> weight_values(n);
            for (std::size_t i = 0; i < n; ++i) weight_values[i] = static_cast<double>(random_below(shape.seed, 8, i, 3));
            weight_values[0] = 1.0;
            const std::vector<std::size_t> first = partition_rows(n, shape.k, d, ranks);
            const std::size_t begin = first[static_cast<std::size_t>(rank)];
            const std::size_t rows = first[static_cast<std::size_t>(rank) + 1] - begin;
            auto block = std::make_shared<Matrix<double>>(rows, d);
            std::copy(points->row(begin), points->row(begin) + rows * d, block->data());
            // k-means‖ over the ranks' blocks: every rank gets one process's centroids (float
            // and double, weighted or not, 1 or 2 threads a rank).
            for (bool as_float : {false, true})
                for (bool weighted : {false, true}) {
                    InitOptions options;
                    options.method = InitMethod::KMeansParallel;
                    options.seed = shape.seed;
                    options.threads = 1;
                    options.oversampling = 1.5;
                    options.parallel_rounds = 3;
                    // Fractional weights: their sums depend on the order they are added in.
                    std::vector<double> fractional(n);
                    for (std::size_t i = 0; i < n; ++i) fractional[i] = 0.1 + 0.3 * weight_values[i];
                    if (weighted) options.sample_weight = fractional;
                    const Matrix<float> points_f = points->cast<float>();
                    const Matrix<double> one = as_float ? initialize_centroids(points_f, shape.k, options)
                                                        : initialize_centroids(*points, shape.k, options);
                    options.threads = 1 + rank % 2;
                    const RowPartition partition{world, n, begin};
                    Matrix<float> block_f(rows, d);
                    std::copy(points_f.row(begin), points_f.row(begin) + rows * d, block_f.data());
                    const Matrix<double> split = as_float ? initialize_centroids(block_f, shape.k, options, partition)
                                                          : initialize_centroids(*block, shape.k, options, partition);
                    ++checks;
                    if (!(split == one))
                        fail(std::string(shape.spec) + " k-means‖" + (as_float ? " f32" : " f64") +
                             (weighted ? " weighted" : "") + ": centroids differ from one process's");
                }
            for (Algorithm algorithm : algorithms)
                for (Precision precision : {Precision::F32, Precision::F64}) {
                    const bool weighted = combination++ % 3 == 1;
                    const std::string where = std::string(shape.spec) + " " + std::string(to_string(algorithm)) +
                                              "/" + std::string(to_string(precision)) + (weighted ? " weighted" : "");
                    auto single = make(algorithm, precision, Backend::OpenMP);
                    single->set_data(points);
                    if (weighted) single->set_sample_weight(std::make_shared<const std::vector<double>>(weight_values));
                    single->set_initial_centroids(initial);
                    auto part = make(algorithm, precision, rank % 2 ? Backend::Sequential : Backend::OpenMP);
                    part->set_partition(RowPartition{world, n, begin});
                    part->set_data(block);
                    if (weighted)
                        part->set_sample_weight(std::make_shared<const std::vector<double>>(
                            weight_values.begin() + static_cast<std::ptrdiff_t>(begin),
                            weight_values.begin() + static_cast<std::ptrdiff_t>(begin + rows)));
                    part->set_initial_centroids(initial);
                    for (int it = 1; !single->converged(); ++it) {
                        const IterationStats a = single->step();
                        const IterationStats b = part->step();
                        const std::string at = where + " iteration " + std::to_string(it);
                        ++checks;
                        if (!(single->centroids() == part->centroids())) fail(at + ": centroids differ");
                        if (single->inertia() != part->inertia()) fail(at + ": inertia differs");
                        if (a.labels_changed != b.labels_changed || a.point_centroid_distances != b.point_centroid_distances ||
                            a.bound_skips != b.bound_skips || a.empty_clusters != b.empty_clusters)
                            fail(at + ": counts differ");
                        if (single->stop_reason() != part->stop_reason()) fail(at + ": stop decision differs");
                        if (!std::equal(part->labels().begin(), part->labels().end(),
                                        single->labels().begin() + static_cast<std::ptrdiff_t>(begin)))
                            fail(at + ": labels of rows [" + std::to_string(begin) + ", " +
                                 std::to_string(begin + rows) + ") differ");
                    }
                }
        }
    } catch (const std::exception& e) {
        fail(std::string("error: ") + e.what());
    }
    std::uint64_t totals[] = {failures, checks};
    world->sum(totals);
    if (rank == 0)
        std::printf("test_mpi_partition: %d rank(s), %llu checks (summed over the ranks), %llu failures: %s\n", ranks,
                    static_cast<unsigned long long>(totals[1]), static_cast<unsigned long long>(totals[0]),
                    totals[0] == 0 ? "PASS" : "FAIL");
    return totals[0] == 0 ? 0 : 1;
}
