#pragma once
// Initial centroids, shared by every back end and deterministic for a seed.
// The random stream is counter-based (kms/random.hpp) and every sum over points is
// taken in a fixed blocked order, so a GPU implementation can reproduce the CPU's
// choice exactly for the same seed.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>

#include "kms/matrix.hpp"

namespace kms {

enum class InitMethod {
    Random,                // k distinct points sampled uniformly
    KMeansPlusPlus,        // D² sampling (Arthur & Vassilvitskii)
    GreedyKMeansPlusPlus,  // D² sampling with scikit-learn's local trials (2 + ⌊ln k⌋ candidates)
    Maximin,               // farthest point: first at random, then the point farthest from all chosen
    File,                  // centroids read from a file (any loader format)
    KMeansParallel         // k-means‖ (Bahmani et al. 2012): rounds of independent D² sampling of
                           // oversampling·k candidates each, reduced to k by weighted k-means++
};

enum class SeedingBounds { Auto, On, Off };
std::string_view to_string(SeedingBounds);
std::optional<SeedingBounds> parse_seeding_bounds(std::string_view);  // auto|on|off
// Auto's rule on the GPU (cuda_init.cu): the bounds from k = kAutoBoundsK on, above d =
// kAutoBoundsD. On the CPU: from k = kAutoBoundsCpuK on, up to d = kAutoBoundsD (the tree
// of boxes, one thread, CPU time, 2026-11-28: n = 10^6 × 2 blobs: k = 100 even, k = 150
// 1.35x, k = 200 1.6x, k = 1000 5x faster than plain; uniform d = 2, k = 200: 1.6x at n =
// 10^6, 2.4x at 10^5; uniform d = 4, n = 2·10^5: 1.6x at k = 200, 4x at k = 1000; uniform
// d = 8, n = 2·10^5, k = 500: even; blobs d = 16, n = 2·10^5, k = 500: 3.6x, so clustered
// data in higher d may still want `on`).
constexpr std::size_t kAutoBoundsK = 500;
constexpr std::size_t kAutoBoundsCpuK = 200;
constexpr std::size_t kAutoBoundsD = 4;
// ... and on the CPU only up to kAutoBoundsThreads threads: the bounded rounds leave the
// threads little to share while the plain pass splits its n distances among them (the
// tree, on 6 cores of the lent H200 host, 2026-11-28, n = 10^6 × 2, k = 1000, median of 3
// seeds, plain / bounded ms: blobs 1 thread 2584 / 409, 4 threads 875 / 353, 6 threads 613
// / 390; uniform 1866 / 365, 860 / 388, 646 / 372; plain on 16 cores took 385 ms before:
// about even there, not measured with the tree).
constexpr int kAutoBoundsThreads = 6;

// What a seeding cost, filled where InitOptions::stats points.
struct InitStats {
    double time_ms = 0.0;
    std::uint64_t point_centroid_distances = 0;     // point-to-centre distances evaluated
    std::uint64_t centroid_centroid_distances = 0;  // the bounds' own: centre to a box of points
    std::uint64_t candidates = 0;                   // k-means‖: candidates reduced to k (0 otherwise)
    bool bounded = false;                           // k-means++/greedy (k-means‖: its reduction) ran with bounds
    int rounds = 0;                                 // k-means‖: sampling rounds run
};

std::string_view to_string(InitMethod);
// random|kmeans++|greedy-kmeans++|maximin|kmeans-parallel (also spelt k-means||)
std::optional<InitMethod> parse_init_method(std::string_view);

struct InitOptions {
    InitMethod method = InitMethod::KMeansPlusPlus;
    std::uint64_t seed = 0;
    int greedy_trials = 0;   // 0 = scikit-learn's default 2 + ⌊ln k⌋
    // k-means++ and greedy k-means++ (and k-means‖'s reduction): skip the distances
    // ruled out by a tree of boxes over the points (the CPU; the GPU: the triangle
    // inequality, Raff, IJCAI 2021, with a margin for rounding), so the centres are
    // bitwise those without (one process; ranks take
    // the plain passes). Auto: where measured faster, k >= kAutoBoundsCpuK, d <= kAutoBoundsD and
    // at most kAutoBoundsThreads threads (the GPU: above d = kAutoBoundsD, cuda_init.cu). k-means‖'s
    // rounds always keep their distances with bounds.
    SeedingBounds bounds = SeedingBounds::Auto;
    double oversampling = 2.0;  // k-means‖: each round samples oversampling·k candidates expected
    int parallel_rounds = 5;    // k-means‖: sampling rounds (more if fewer than k candidates came)
    InitStats* stats = nullptr; // filled when set (time, distances, candidates)
    std::string path;        // for InitMethod::File
    // InitMethod::File with centroids already in memory (the Python module's
    // init=array): used instead of reading `path`, checked the same way.
    std::shared_ptr<const Matrix<double>> given;
    int threads = 0;         // OpenMP threads for the distance passes; result does not depend on it
    std::stop_token cancel;  // checked every round: a stop request aborts with kms::Error("... cancelled")
    // Per-point weights (n, checked by the caller; fit() sets them from
    // FitOptions::sample_weight); empty: unweighted. scikit-learn >= 1.3's rule:
    // k-means++ samples the first centre ∝ w and then ∝ w·D², greedy potentials are
    // Σ w·min(D, s), random draws k distinct points ∝ w, maximin takes the farthest
    // point of positive weight. Zero-weight points are chosen only when fewer than
    // k points of positive weight remain. Equal weights seed exactly as none.
    std::span<const double> sample_weight;
};

// k × d centroids. Throws InputError for k < 1 or k > n (naming the source),
// and for a centroid file whose shape does not match (k rows, d columns).
Matrix<double> initialize_centroids(const Matrix<double>& points, std::size_t k, const InitOptions& options,
                                    const std::string& source_name = "data");
// Float points: the centroids the same values widened to double would give, bit for bit.
Matrix<double> initialize_centroids(const Matrix<float>& points, std::size_t k, const InitOptions& options,
                                    const std::string& source_name = "data");

// The same for a data set split over ranks, from each rank's block only (a
// collective call; kms/communicator.hpp): rows [partition.first_row, + block.rows())
// of partition.global_rows, the blocks in rank order covering the rows once and
// starting on 4096-row blocks (kms::partition_rows' blocks do). The ranks combine
// their blocks' sums in the single process's order and fetch each chosen row from
// its owner: every rank gets the centroids one process would choose from all rows.
// options.sample_weight holds every row's weight (all global_rows of them).
struct RowPartition;
Matrix<double> initialize_centroids(const Matrix<double>& block, std::size_t k, const InitOptions& options,
                                    const RowPartition& partition, const std::string& source_name = "data");
Matrix<double> initialize_centroids(const Matrix<float>& block, std::size_t k, const InitOptions& options,
                                    const RowPartition& partition, const std::string& source_name = "data");

// Out of core (kms/row_source.hpp): rows [first_row, first_row + rows) of `source`,
// read as doubles (the loaded matrix's values) a buffer of at most `buffer_bytes` at a
// time, once per centre chosen (k-means++, greedy, maximin: k passes over the file;
// random reads its k rows; a centroid file none). Bitwise the centroids of the loaded
// rows; with `partition` (may be null) a collective call over the ranks' blocks, as
// above. Per-point state stays in memory (8 bytes a row: each row's nearest-centre
// distance). k-means‖ is refused (its candidates are rows in memory).
class RowSource;
Matrix<double> initialize_centroids(const RowSource& source, std::size_t first_row, std::size_t rows, std::size_t k,
                                    const InitOptions& options, const RowPartition* partition, std::size_t buffer_bytes,
                                    const std::string& source_name = "data");

// Runs seed() (returning the centres) and, where options.stats is set, records its wall
// time there: every initialiser, CPU and GPU, times itself this one way.
template <typename Seed>
Matrix<double> timed_seeding(const InitOptions& options, Seed&& seed) {
    const auto start = std::chrono::steady_clock::now();
    Matrix<double> centres = seed();
    if (options.stats)
        options.stats->time_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return centres;
}

}  // namespace kms
