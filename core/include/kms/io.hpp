#pragma once
// Loading point sets and writing results. Every malformed input is refused with
// an InputError naming the file, the line (or byte offset) and the reason: never a
// partial silent load.
#include <cstdint>
#include <functional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "kms/dataset.hpp"
#include "kms/matrix.hpp"

namespace kms {

// Called now and then while loading: bytes parsed so far, total bytes.
using LoadProgress = std::function<void(std::uint64_t done_bytes, std::uint64_t total_bytes)>;

struct LoadOptions {
    LoadProgress progress;       // may be empty
    std::stop_token cancel;      // a stop request aborts the load with kms::Error("... cancelled")
    bool attach_ground_truth = true;  // pick up NAME-labels.txt / NAME-gt.txt beside NAME.txt
};

// Formats: delimited text (comma, tab, spaces; auto-detected; optional header
// row; '#' comments; CRLF; UTF-8 BOM), the whitespace-separated benchmark-set
// format, NumPy .npy (float32/float64/int32/int64, C order, 1-D or 2-D).
Dataset load_dataset(const std::string& path, const LoadOptions& options = {});
// Same formats, just the matrix (initial centroids, true centroids).
Matrix<double> load_matrix(const std::string& path, const LoadOptions& options = {});
// One integer label per line (text) or a 1-D integer .npy. Returned as read.
std::vector<std::int32_t> load_labels(const std::string& path);

// Writers replace the file atomically (temporary file + rename): a failed write
// never leaves a half-written file behind. Throw kms::Error naming the path.
void write_labels(const std::string& path, std::span<const std::int32_t> labels);   // one per line, 0-based
void write_centroids_csv(const std::string& path, const Matrix<double>& centroids); // one row per centroid
void write_text_file(const std::string& path, const std::string& contents);

}  // namespace kms
