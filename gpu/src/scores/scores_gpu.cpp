// Host side of the CUDA silhouette: label encoding, cluster ordering, the final
// s(i) (same formula as the CPU), and the fallback when this build has no CUDA.
#include "kms/gpu_scores.hpp"

#include <algorithm>

#include "kms/error.hpp"

#if KMS_HAVE_CUDA
#include "scores/scores_cuda.hpp"
#endif

namespace kms {

#if !KMS_HAVE_CUDA

bool gpu_silhouette_available(std::string* reason) {
    if (reason) *reason = "this build has no CUDA back end (no CUDA compiler was found when it was configured)";
    return false;
}

std::string gpu_device_description(int) {
    std::string reason;
    gpu_silhouette_available(&reason);
    return reason;
}

namespace {
[[noreturn]] void unavailable() {
    std::string reason;
    gpu_silhouette_available(&reason);
    throw Error("CUDA silhouette is unavailable: " + reason);
}
}  // namespace

SilhouetteResult gpu_silhouette(const Matrix<double>&, std::span<const std::int32_t>, std::stop_token, int) {
    unavailable();
}
SilhouetteResult gpu_silhouette(const Matrix<float>&, std::span<const std::int32_t>, std::stop_token, int) {
    unavailable();
}

#else

bool gpu_silhouette_available(std::string* reason) {
    const std::string why = detail::cuda_silhouette_unavailable_reason(0);
    if (reason) *reason = why;
    return why.empty();
}

std::string gpu_device_description(int device) {
    if (const std::string why = detail::cuda_silhouette_unavailable_reason(device); !why.empty()) return why;
    return detail::cuda_device_description(device);
}

namespace {

bool stop_requested(void* context) { return static_cast<std::stop_token*>(context)->stop_requested(); }

template <typename T>
SilhouetteResult run(const Matrix<T>& points, std::span<const std::int32_t> labels, std::stop_token stop, int device) {
    if (points.rows() != labels.size())
        throw Error("labels do not match the points: " + std::to_string(labels.size()) + " labels for " +
                    std::to_string(points.rows()) + " points");
    const LabelEncoding encoding = encode_labels(labels);
    const std::size_t n = points.rows(), d = points.cols(), k = encoding.k();
    check_number_of_labels(k, n);
    if (const std::string why = detail::cuda_silhouette_unavailable_reason(device); !why.empty())
        throw Error("CUDA silhouette is unavailable: " + why);

    // Order the points by cluster (the kernels walk one cluster at a time).
    std::vector<std::uint64_t> start(k + 1, 0);
    for (std::size_t c = 0; c < k; ++c) start[c + 1] = start[c] + encoding.counts[c];
    std::vector<std::uint64_t> next(start.begin(), start.end() - 1);
    std::vector<std::size_t> row_of(n);  // sorted position → original row
    for (std::size_t i = 0; i < n; ++i) row_of[next[std::size_t(encoding.codes[i])]++] = i;
    std::vector<T> sorted(n * d);
    std::vector<std::int32_t> sorted_codes(n);
    for (std::size_t r = 0; r < n; ++r) {
        std::copy_n(points.row(row_of[r]), d, sorted.data() + r * d);
        sorted_codes[r] = encoding.codes[row_of[r]];
    }
    if (stop.stop_requested()) throw Error("silhouette cancelled");

    std::vector<double> intra(n), nearest(n);
    if (!detail::cuda_silhouette_sums<T>(sorted.data(), n, d, sorted_codes.data(), start.data(), k, device,
                                         &stop_requested, &stop, intra.data(), nearest.data()))
        throw Error("silhouette cancelled");

    SilhouetteResult result;
    result.values.assign(n, 0.0);
    for (std::size_t r = 0; r < n; ++r) {
        const std::uint64_t own = encoding.counts[std::size_t(sorted_codes[r])];
        if (own <= 1) continue;  // scikit-learn: singletons score 0
        const double a = intra[r] / double(own - 1);
        const double b = nearest[r];
        const double denominator = std::max(a, b);
        result.values[row_of[r]] = denominator == 0.0 ? 0.0 : (b - a) / denominator;
    }
    double sum = 0.0;
    for (double v : result.values) sum += v;
    result.score = sum / double(n);
    return result;
}

}  // namespace

SilhouetteResult gpu_silhouette(const Matrix<double>& points, std::span<const std::int32_t> labels,
                                std::stop_token stop, int device) {
    return run(points, labels, std::move(stop), device);
}
SilhouetteResult gpu_silhouette(const Matrix<float>& points, std::span<const std::int32_t> labels,
                                std::stop_token stop, int device) {
    return run(points, labels, std::move(stop), device);
}

#endif

}  // namespace kms
