// k-means++ and maximin initialisation on the GPU, bit-identical to the CPU
// initialiser (core/src/init.cpp), which documents the order this follows:
// D[i] = min over chosen centres of squared_distance<double> (same arithmetic),
// blocks of 4096 points summed in increasing i from 0.0, block sums added in block
// order, D² sampling walked exactly as on the CPU (one thread: it is sequential by
// definition), maximin = first index of the largest D. One round = one pass over
// the points plus one single-thread walk; a few scalars come back per round.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cuda_common.hpp"
#include "cuda_device.hpp"
#include "kms/cuda_init.hpp"
#include "kms/error.hpp"
#include "kms/random.hpp"

namespace kms {
namespace {

constexpr int kInitBlock = 4096;  // core/src/init.cpp kBlockSize
constexpr int kThreads = 256;
constexpr std::uint64_t kStreamFirstCentre = 0x1171;
constexpr std::uint64_t kStreamKMeansPlusPlus = 0x1172;
constexpr std::uint64_t kStreamFallback = 0x1174;

struct RoundResult {
    double total;
    long long next;  // the next centre (when sampled on the device), else -1
};

// D[i] = min(D[i], dist(i, centre)); the block's sum in increasing i (one thread,
// from shared memory) and the block's first largest D.
__global__ void add_centre_kernel(const double* points, long long n, int d, const long long* centre, double* weights,
                                  double* block_sums, long long* block_best) {
    __shared__ double local[kInitBlock];
    __shared__ long long best_index[kThreads];
    const long long begin = static_cast<long long>(blockIdx.x) * kInitBlock;
    const int count = static_cast<int>(min(static_cast<long long>(kInitBlock), n - begin));
    const double* c = points + *centre * d;
    long long best = -1;
    for (int e = threadIdx.x; e < count; e += blockDim.x) {
        const long long i = begin + e;
        const double s = cuda::exact_squared_distance(points + i * d, c, d);
        double w = weights[i];
        if (s < w) w = s;
        weights[i] = w;
        local[e] = w;
        if (best < 0 || w > local[best - begin]) best = i;  // e increases: ties keep the lower i
    }
    best_index[threadIdx.x] = best;
    __syncthreads();
    if (threadIdx.x != 0) return;
    double sum = 0.0;
    for (int e = 0; e < count; ++e) sum += local[e];
    block_sums[blockIdx.x] = sum;
    long long top = best_index[0];
    for (int t = 1; t < static_cast<int>(blockDim.x); ++t) {
        const long long candidate = best_index[t];
        if (candidate < 0) continue;
        const double a = local[candidate - begin], b = local[top - begin];
        if (a > b || (a == b && candidate < top)) top = candidate;
    }
    block_best[blockIdx.x] = top;
}

// One thread: the total, then the next centre (method 1: D² sampling with u,
// method 2: maximin, method 0: none) exactly as NearestDistances does on the CPU.
__global__ void select_kernel(const double* weights, long long n, const double* block_sums,
                              const long long* block_best, long long blocks, int method, double u,
                              long long* centre, RoundResult* result) {
    double total = 0.0;
    for (long long b = 0; b < blocks; ++b) total += block_sums[b];
    long long next = -1;
    auto last_positive = [&](long long begin, long long end) {
        for (long long i = end; i > begin; --i)
            if (weights[i - 1] > 0.0) return i - 1;
        return end - 1;
    };
    if (total > 0.0 && method == 1) {
        const double target = u * total;
        double running = 0.0;
        for (long long b = 0; b < blocks && next < 0; ++b) {
            if (running + block_sums[b] > target) {
                const long long begin = b * kInitBlock, end = min(n, begin + kInitBlock);
                for (long long i = begin; i < end; ++i) {
                    running += weights[i];
                    if (running > target) {
                        next = i;
                        break;
                    }
                }
                if (next < 0) next = last_positive(begin, end);
            } else {
                running += block_sums[b];
            }
        }
        if (next < 0) next = last_positive(0, n);
    } else if (total > 0.0 && method == 2) {
        next = block_best[0];
        for (long long b = 1; b < blocks; ++b)
            if (weights[block_best[b]] > weights[next]) next = block_best[b];
    }
    if (next >= 0) *centre = next;
    result->total = total;
    result->next = next;
}

__global__ void fill_kernel(double* values, long long n, double value) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) values[i] = value;
}

}  // namespace

Matrix<double> cuda_initialize_centroids(const Matrix<double>& points, std::size_t k, const InitOptions& options,
                                         const std::string& source_name, int device) {
    if (options.method != InitMethod::KMeansPlusPlus && options.method != InitMethod::Maximin)
        return initialize_centroids(points, k, options, source_name);
    const std::size_t n = points.rows(), d = points.cols();
    if (k < 1 || k > n)
        throw InputError::whole(source_name, "k = " + std::to_string(k) + " must be between 1 and n = " +
                                                 std::to_string(n));
    if (d == 0) throw InputError::whole(source_name, "the points have no coordinates (d = 0)");
    using cuda::DeviceBuffer;
    KMS_CUDA_CHECK(cudaSetDevice(device));
    const long long blocks = static_cast<long long>((n + kInitBlock - 1) / kInitBlock);
    DeviceBuffer<double> device_points, weights, block_sums;
    DeviceBuffer<long long> block_best, centre;
    DeviceBuffer<RoundResult> result;
    device_points.allocate(n * d, "the points (initialisation)");
    weights.allocate(n, "the nearest-centre weights");
    block_sums.allocate(static_cast<std::size_t>(blocks), "the block sums");
    block_best.allocate(static_cast<std::size_t>(blocks), "the block maxima");
    centre.allocate(1, "the centre index");
    result.allocate(1, "the round result");
    KMS_CUDA_CHECK(cudaMemcpy(device_points.get(), points.data(), n * d * sizeof(double), cudaMemcpyHostToDevice));
    fill_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(weights.get(), static_cast<long long>(n),
                                                                   std::numeric_limits<double>::infinity());
    KMS_CUDA_LAUNCH_CHECK("initialisation fill kernel");

    const std::uint64_t seed = options.seed;
    std::vector<char> chosen(n, 0);
    std::vector<std::size_t> order;
    order.reserve(k);
    auto record = [&](std::size_t index) {
        chosen[index] = 1;
        order.push_back(index);
    };
    long long first = static_cast<long long>(random_below(seed, kStreamFirstCentre, 0, n));
    KMS_CUDA_CHECK(cudaMemcpy(centre.get(), &first, sizeof(first), cudaMemcpyHostToDevice));
    record(static_cast<std::size_t>(first));
    const int method = options.method == InitMethod::KMeansPlusPlus ? 1 : 2;
    for (std::uint64_t round = 1;; ++round) {
        // Add the centre chosen last; then (if another is needed) pick the next one.
        add_centre_kernel<<<static_cast<unsigned>(blocks), kThreads>>>(device_points.get(), static_cast<long long>(n),
                                                                      static_cast<int>(d), centre.get(), weights.get(),
                                                                      block_sums.get(), block_best.get());
        KMS_CUDA_LAUNCH_CHECK("initialisation distance kernel");
        const bool more = round < k;
        const double u = more && method == 1 ? random_uniform(seed, kStreamKMeansPlusPlus, round) : 0.0;
        select_kernel<<<1, 1>>>(weights.get(), static_cast<long long>(n), block_sums.get(), block_best.get(), blocks,
                                more ? method : 0, u, centre.get(), result.get());
        KMS_CUDA_LAUNCH_CHECK("initialisation selection kernel");
        RoundResult host{};
        KMS_CUDA_CHECK(cudaMemcpy(&host, result.get(), sizeof(host), cudaMemcpyDeviceToHost));
        if (!std::isfinite(host.total))
            throw InputError::whole(source_name, "squared distances between points overflow (or are not numbers); "
                                                 "rescale the data");
        if (!more) break;
        if (options.cancel.stop_requested()) throw Error(source_name + ": initialisation cancelled");
        long long next = host.next;
        if (!(host.total > 0.0)) {  // every point coincides with a centre: the m-th unchosen point
            std::uint64_t m = random_below(seed, kStreamFallback, round, n - order.size());
            next = static_cast<long long>(n) - 1;
            for (std::size_t i = 0; i < n; ++i)
                if (!chosen[i] && m-- == 0) {
                    next = static_cast<long long>(i);
                    break;
                }
            KMS_CUDA_CHECK(cudaMemcpy(centre.get(), &next, sizeof(next), cudaMemcpyHostToDevice));
        }
        record(static_cast<std::size_t>(next));
    }
    Matrix<double> out(k, d);
    for (std::size_t c = 0; c < k; ++c)
        for (std::size_t j = 0; j < d; ++j) out(c, j) = points(order[c], j);
    return out;
}

}  // namespace kms
