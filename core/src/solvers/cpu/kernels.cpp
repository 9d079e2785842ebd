// The hot loops, compiled twice (AVX2 and the baseline) and chosen at run time.
#include "kernels.hpp"

namespace kms::cpu {

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define KMS_HOT_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define KMS_HOT_CLONES
#endif

template <typename T>
inline std::uint64_t lloyd_label_range(const T* points, std::size_t d, const T* centroids_t, std::size_t k,
                                       std::size_t begin, std::size_t end, std::int32_t* labels, T* scratch) {
    std::uint64_t changed = 0;
    for (std::size_t i = begin; i < end; ++i) {
        distances_to_all(points + i * d, centroids_t, d, k, scratch);
        const auto label = static_cast<std::int32_t>(argmin(scratch, k));
        changed += labels[i] != label;
        labels[i] = label;
    }
    return changed;
}

KMS_HOT_CLONES std::uint64_t lloyd_label_range_f32(const float* points, std::size_t d, const float* centroids_t,
                                                   std::size_t k, std::size_t begin, std::size_t end,
                                                   std::int32_t* labels, float* scratch) {
    return lloyd_label_range(points, d, centroids_t, k, begin, end, labels, scratch);
}
KMS_HOT_CLONES std::uint64_t lloyd_label_range_f64(const double* points, std::size_t d, const double* centroids_t,
                                                   std::size_t k, std::size_t begin, std::size_t end,
                                                   std::int32_t* labels, double* scratch) {
    return lloyd_label_range(points, d, centroids_t, k, begin, end, labels, scratch);
}
KMS_HOT_CLONES void distances_to_all_f32(const float* p, const float* ct, std::size_t d, std::size_t k, float* out) {
    distances_to_all(p, ct, d, k, out);
}
KMS_HOT_CLONES void distances_to_all_f64(const double* p, const double* ct, std::size_t d, std::size_t k,
                                         double* out) {
    distances_to_all(p, ct, d, k, out);
}

}  // namespace kms::cpu
