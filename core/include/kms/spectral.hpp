#pragma once
// Spectral clustering through k-means representatives (He, Vialle & Baboulin):
// k-means reduces the n points to R representatives; a Gaussian similarity graph
// of the representatives (full, or symmetrised k-nearest-neighbour), its symmetric
// normalised Laplacian L = I - D^-1/2 W D^-1/2, the eigenvectors of its k_c
// smallest eigenvalues with rows normalised (Ng, Jordan & Weiss), a k-means of
// that embedding, and every point takes its representative's label.
// Both k-means go through kms::fit; the eigensolver comes from the back-end
// registry (LAPACK on the CPU). docs/spectral.md describes the method and choices.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "kms/eigen.hpp"
#include "kms/fit.hpp"
#include "kms/matrix.hpp"
#include "kms/options.hpp"

namespace kms {

struct SpectralOptions {
    // The representatives' k-means: solver, back end, seed, init, restarts from the
    // fit option table. Its k is the representative count (below).
    FitOptions kmeans;
    std::size_t clusters = 0;         // k_c; 0 = auto: eigengap_clusters() of the first kMaxAutoClusters + 1 eigenvalues
    std::size_t representatives = 0;  // R; 0 = min(n, kDefaultRepresentatives)
    std::size_t neighbours = kDefaultNeighbours;  // M: k-nearest-neighbour graph; 0 = full graph
    double sigma = 0.0;               // Gaussian width; 0 = the median of the M-th neighbour distances
    int final_n_init = kDefaultFinalRestarts;     // restarts of the k-means on the embedding
    bool weight_by_size = true;       // the embedding's k-means weighs each representative by its points

    static constexpr std::size_t kDefaultRepresentatives = 1000;
    static constexpr std::size_t kDefaultNeighbours = 10;
    static constexpr std::size_t kSigmaNeighbourOfFullGraph = 7;  // M for sigma when the graph is full (local scaling's 7th)
    static constexpr std::size_t kMaxAutoClusters = 20;
    static constexpr std::size_t kReportedEigenvalues = 20;
    static constexpr int kDefaultFinalRestarts = 10;

    // Throws kms::UsageError naming the option (the representatives' FitOptions
    // are checked by fit itself once R is known).
    void validate() const;
};

// The option table of the spectral chain (--k K|auto, --representatives,
// --neighbours, --sigma, --final-n-init, --rep-weights). The representatives' k-means
// takes the fit table's options except --k (fit_options_without_k()).
OptionTable spectral_option_table();
std::vector<OptionSpec> fit_options_without_k();
// Both tables' values from a command line, validated.
SpectralOptions spectral_options_from(const ParsedOptions& parsed);

struct SpectralTimes {
    double representatives_ms = 0.0;  // the k-means of the n points into R
    double similarity_ms = 0.0;       // neighbours, sigma, W and the Laplacian
    double eigensolver_ms = 0.0;
    double final_kmeans_ms = 0.0;     // the k-means of the embedding (every restart)
    double labelling_ms = 0.0;        // each point's label from its representative
    double total_ms() const {
        return representatives_ms + similarity_ms + eigensolver_ms + final_kmeans_ms + labelling_ms;
    }
};

enum class SpectralPhase { Representatives, Similarity, Eigensolver, FinalKMeans, Labelling };
std::string_view to_string(SpectralPhase phase);

struct SpectralResult {
    std::size_t n = 0, d = 0;
    std::size_t representatives = 0;          // R used
    std::size_t neighbours = 0;               // M used (0: full graph)
    FitResult representative_fit;             // centroids (R × d) and each point's representative
    std::vector<double> representative_sizes; // points per representative
    double sigma = 0.0;
    std::string sigma_rule;                   // "--sigma" or how it was chosen
    EigenPairs eigen;                         // the smallest eigenpairs computed (>= kReportedEigenvalues when R allows)
    std::string eigensolver_note;             // why the eigensolver differs from --backend, if it does
    std::size_t clusters = 0;                 // k_c used
    bool clusters_chosen = false;             // --k auto
    double eigengap = 0.0;                    // λ_{k_c+1} − λ_{k_c} (NaN when k_c = R)
    double eigengap_ratio = 0.0;              // λ_{k_c+1} / λ_{k_c}, both floored at kEigenvalueFloor (NaN when k_c = R)
    Matrix<double> embedding;                 // R × k_c, rows normalised
    FitResult final_fit;                      // the embedding's k-means
    std::vector<std::int32_t> representative_labels;  // R
    std::vector<std::int32_t> labels;                 // n
    SpectralTimes times;
    bool cancelled = false;                   // a stop request ended it; labels are then empty
};

// Phases as they finish (the studio shows the representatives before the rest).
// Called on the thread that runs spectral_cluster().
using SpectralProgress = std::function<void(SpectralPhase done, const SpectralResult& so_far)>;

// The whole chain. Throws kms::UsageError for options that do not fit the data (R > n,
// k_c > R), kms::InputError naming `source_name` for data fit() refuses, kms::Error when
// no eigensolver can run (what to install). A stop request ends it after the
// phase (or k-means step) in progress with `cancelled` set.
SpectralResult spectral_cluster(std::shared_ptr<const Matrix<double>> points, const SpectralOptions& options,
                                const SpectralProgress& progress = {}, std::stop_token stop = {},
                                const std::string& source_name = "data");

// The pieces, for tests and the studio.
// `threads`: OpenMP threads, 0 = OpenMP's default.
// Each row's `count` nearest other rows (ties to the lower index), by squared distance.
std::vector<std::vector<std::uint32_t>> nearest_neighbours(const Matrix<double>& points, std::size_t count,
                                                           int threads = 0);
// Gaussian similarity exp(-|xi-xj|^2 / (2 sigma^2)), zero diagonal; with neighbour lists,
// only the pairs where either is among the other's neighbours (symmetrised).
Matrix<double> gaussian_similarity(const Matrix<double>& points, double sigma,
                                   const std::vector<std::vector<std::uint32_t>>* neighbours = nullptr,
                                   int threads = 0);
// I - D^-1/2 W D^-1/2; an isolated vertex (degree 0) gets a zero row and column:
// a component of its own, with eigenvalue 0.
Matrix<double> normalized_laplacian(const Matrix<double>& similarity, int threads = 0);
// --k auto: k in [2, min(max_clusters, values.size() - 1)] with the largest eigengap on a
// log scale, λ_{k+1} / λ_k, eigenvalues below kEigenvalueFloor counted as the floor (ties:
// the smallest k). Why relative and why not k = 1: docs/spectral.md. Needs 3 values.
inline constexpr double kEigenvalueFloor = 1e-10;
std::size_t eigengap_clusters(const std::vector<double>& ascending_values, std::size_t max_clusters);

}  // namespace kms
