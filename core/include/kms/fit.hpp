#pragma once
// The fit layer: what scikit-learn's KMeans.fit and FAISS's Clustering::train do,
// written once. fit() validates, initialises (on the back end's device when it
// has an initialiser), runs the restarts, steps each one to its stop, finalises
// the labels and keeps the best restart. Clients watch through a FitObserver: the
// CLI prints, the studio draws, the benchmarks record; none writes its own loop.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "kms/backends.hpp"
#include "kms/communicator.hpp"
#include "kms/device_matrix.hpp"
#include "kms/init.hpp"
#include "kms/matrix.hpp"
#include "kms/row_source.hpp"
#include "kms/solver.hpp"
#include "kms/stats.hpp"

namespace kms {

struct FitOptions {
    SolverConfig solver;
    std::size_t k = 0;
    InitOptions init;      // restart r initialises with seed init.seed + r
    int n_init = 1;        // restarts; the one with the lowest final inertia is kept (ties: the lowest seed)
    // scikit-learn's sample_weight: one non-negative finite weight per point, not
    // all zero (fit() checks); null: every point weighs 1. Weighs the update, the
    // inertia and the seeded initialisations (scikit-learn >= 1.3's semantics).
    std::shared_ptr<const std::vector<double>> sample_weight;
    // Ranks (MPI: kms_mpi's mpi_world()): every rank passes the same points and
    // options; each solves its block of rows (kms::partition_rows) and the result
    // (labels included) is the whole data set's on every rank, bit for bit one
    // process's. Stop requests are not taken during such a fit (every rank must run
    // the same steps): the launcher ends the job on Ctrl-C. Host data only.
    std::shared_ptr<Communicator> ranks;
    // Several devices of a back end that has them (--devices): one rank per device,
    // each a thread of this process solving its block of rows on its device, combined
    // as ranks are (bitwise the result of one device run with --devices N). Host data
    // only. With `ranks`, every rank drives its own list (the same length on every rank):
    // the rows split over ranks × devices (rank_blocks()). A device may be listed twice
    // (two blocks on one device).
    std::vector<int> devices;

    static constexpr int kMaxRestarts = 10000;
    // Throws kms::UsageError naming the option: k, n_init, and SolverConfig::validate().
    void validate() const;
};

// One restart's outcome, for reports.
struct RestartResult {
    int restart = 0;
    std::uint64_t seed = 0;
    int iterations = 0;
    StopReason stop_reason = StopReason::NotStopped;
    double inertia = 0.0;      // of its final labels and centroids
    double time_ms = 0.0;      // its steps' summed time
    InitStats init;            // its seeding: time, distances (k-means‖: candidates, rounds)
};

struct FitResult {
    SolverConfig solver;                // the configuration that ran (--solver auto resolved)
    std::string solver_choice;          // --solver auto: what it chose and why; empty otherwise
    Matrix<double> initial_centroids;   // of the kept restart
    Matrix<double> centroids;           // final, k × d
    std::vector<std::int32_t> labels;   // final: each point's label against `centroids`
    double inertia = 0.0;
    int iterations = 0;
    StopReason stop_reason = StopReason::NotStopped;  // Cancelled when the stop token ended it
    std::vector<RestartResult> restarts;               // every restart run, in order
    int best_restart = 0;
    double total_time_ms = 0.0;         // step time summed over every restart
    const void* data_address = nullptr; // where the solver read the points (Solver::data_address())
    std::size_t devices_used = 0;       // --devices: how many held rows (the first ones listed)

    bool converged() const {
        return stop_reason == StopReason::NoLabelChange || stop_reason == StopReason::Tolerance;
    }
};

// What a fit reports while it runs, on the thread that runs fit().
class FitObserver {
public:
    virtual ~FitObserver() = default;
    virtual void restart_started(int /*restart*/, std::uint64_t /*seed*/, const Matrix<double>& /*initial*/) {}
    // After each step; `solver` holds that iteration's labels and centroids.
    virtual void iteration_done(int /*restart*/, const IterationStats& /*stats*/, const Solver& /*solver*/) {}
    virtual void restart_done(const RestartResult& /*result*/) {}
};

// One run from given initial centroids over any solver: the step loop, the stop
// rule and the finalisation. fit() runs one per restart; the studio steps one.
class KMeansRun {
public:
    explicit KMeansRun(std::unique_ptr<Solver> solver) : solver_(std::move(solver)) {}

    Solver& solver() { return *solver_; }
    const Solver& solver() const { return *solver_; }

    // Steps until the solver stops, `max_steps` more steps were taken (< 0: no
    // limit), `on_step` returns false, or `stop` is requested (checked before each
    // step). When the solver stops on tol or max-iter, the labels are recomputed
    // against the final centroids before `on_step` sees that step (as scikit-learn
    // does), so the final labels always match the final centroids. Returns the
    // number of steps taken.
    int advance(int max_steps, std::stop_token stop = {},
                const std::function<bool(const IterationStats&)>& on_step = {});

    bool finished() const { return solver_->converged(); }
    double step_time_ms() const { return step_time_ms_; }  // summed since the last reset()
    void reset() {
        solver_->reset();
        step_time_ms_ = 0.0;
    }

private:
    std::unique_ptr<Solver> solver_;
    double step_time_ms_ = 0.0;
};

// Fits `options.k` clusters to `points`. Throws kms::UsageError for bad options,
// kms::InputError (naming `source_name`) for k > n, bad initial centroids or bad
// sample weights (check_sample_weight), and
// kms::Error for an unavailable back end. A stop request ends it after the step
// in progress with stop_reason Cancelled and the best state reached so far.
FitResult fit(std::shared_ptr<const Matrix<double>> points, const FitOptions& options, FitObserver* observer = nullptr,
              std::stop_token stop = {}, const std::string& source_name = "data");
// A run made ready to step, as fit() prepares each of its runs: the studio steps it.
struct PreparedRun {
    std::unique_ptr<KMeansRun> run;      // its data and initial centroids set, at iteration 0
    SolverConfig solver;                 // what runs (--solver auto resolved: by the back end's rule or its race)
    std::string solver_choice;           // --solver auto: what it chose and why; empty otherwise
    Matrix<double> initial_centroids;    // given, seeded, or (n_init > 1) the best restart's
    std::vector<RestartResult> restarts; // n_init > 1: every restart, run to its end by fit()
    int best_restart = 0;
    InitStats init;                      // the seeding of initial_centroids (zero when given)
};
// The checks, the solver (auto chosen or raced), the data and the initial centroids
// of one run of `points`, in one process (not over ranks): from `given` when it has
// rows (k = their number), else restart 0's seeding; with n_init > 1, fit() runs every
// restart first and the run starts from the best one's centroids. A stop request
// while seeding or restarting ends it with kms::Cancelled (or the initialiser's error).
PreparedRun prepare_run(std::shared_ptr<const Matrix<double>> points, const FitOptions& options,
                        const Matrix<double>& given = {}, std::stop_token stop = {},
                        const std::string& source_name = "data");

// Float points (a float32 NumPy array): the same fit as of their values widened to
// double, bit for bit. The CPU back ends read them in place (FitResult::data_address
// is theirs when the precision is f32); other back ends get a widened copy.
FitResult fit(std::shared_ptr<const Matrix<float>> points, const FitOptions& options, FitObserver* observer = nullptr,
              std::stop_token stop = {}, const std::string& source_name = "data");
// The same fit of points in a device's memory (kms/device_matrix.hpp), on a back
// end that takes device data (CUDA; others throw kms::Error): the solver reads them
// in place and the back end's device initialiser seeds from them.
// Memory scale-out over ranks (FitOptions::ranks required): each rank passes only
// its block of a data set of `global_rows` rows — rows [first_row, first_row +
// block->rows()), the block rank_blocks() gives it (read_rows() reads one from a
// .npy file). The
// initialisation runs over the blocks (kms/init.hpp), so the result is bitwise
// fit()'s on all rows in one process, labels of every row included, on every rank.
// options.sample_weight, when set, holds every row's weight.
// Each rank's first row, and global_rows at the end (FitOptions::ranks): kms::partition_rows
// over the ranks, with parts = the rank's --devices where it drives several.
std::vector<std::size_t> rank_blocks(std::size_t global_rows, std::size_t d, const FitOptions& options);
FitResult fit_block(std::shared_ptr<const Matrix<double>> block, std::size_t global_rows, std::size_t first_row,
                    const FitOptions& options, FitObserver* observer = nullptr, const std::string& source_name = "data");
FitResult fit_block(std::shared_ptr<const Matrix<float>> block, std::size_t global_rows, std::size_t first_row,
                    const FitOptions& options, FitObserver* observer = nullptr, const std::string& source_name = "data");

FitResult fit(std::shared_ptr<const DeviceMatrix> points, const FitOptions& options, FitObserver* observer = nullptr,
              std::stop_token stop = {}, const std::string& source_name = "data");

// Out of core: the points of `source` (kms/row_source.hpp, e.g. open_matrix_rows), never
// all in memory. Every pass (the data's checks, the tolerance, each seeding round, each
// step, the inertia, the final relabel) reads them a block at a time into buffers of
// `buffer_bytes` together; what stays in memory is per point: the labels (4 bytes a
// row, twice with a stop token, plus the result's 4), the seeding's distances (8
// bytes, while seeding). The same fit loop as fit() of the loaded rows, bitwise its
// result (labels, centroids, iterations) for any block size and thread count. With
// FitOptions::ranks each rank reads only its block of rows (kms::partition_rows), a
// block at a time. The solvers that read by blocks (SolverTraits::streams_points; on the
// CPU every one but Ball) keep their bounds in memory beside the labels (Elkan's k + 1 a
// row); --solver auto takes out_of_core_choice() of the back end's rule. Refused
// (kms::UsageError): the other solvers, --devices, --empty farthest, and sample weights on
// a CUDA device.
FitResult fit(std::shared_ptr<const RowSource> source, std::size_t buffer_bytes, const FitOptions& options,
              FitObserver* observer = nullptr, std::stop_token stop = {});

// Each point's nearest centroid with the engine's distance in `config.precision`
// (ties to the lowest index), on `config.backend`: labels and their inertia. What
// predict and the studio's relabelling use. Throws kms::Error when the centroids'
// dimension differs from the points'.
// (Assignment: kms/backends.hpp.)
// With `sample_weight` (n weights) the inertia is Σ w·distance (scikit-learn's score).
Assignment assign(std::shared_ptr<const Matrix<double>> points, const Matrix<double>& centroids,
                  const SolverConfig& config, std::shared_ptr<const std::vector<double>> sample_weight = nullptr);
// Float points: the labels and inertia of their values widened to double.
Assignment assign(std::shared_ptr<const Matrix<float>> points, const Matrix<double>& centroids,
                  const SolverConfig& config, std::shared_ptr<const std::vector<double>> sample_weight = nullptr);
// Points in a device's memory: on the configuration's back end, which must take
// device data (CUDA), with k <= n.
Assignment assign(std::shared_ptr<const DeviceMatrix> points, const Matrix<double>& centroids,
                  const SolverConfig& config, std::shared_ptr<const std::vector<double>> sample_weight = nullptr);

// --solver auto where the back end races candidates (BackendEntry::race_candidates:
// the GPU, where speed depends on the data's structure): each candidate in turn, one
// solver at a time, made from `config` with its algorithm, given its data by
// `prepare`, takes a few steps from `initial`; pick_race_winner chooses from what
// judge_race_steps makes of each, and the reason gives every candidate's time. nullopt
// when nothing races (not auto, no or one candidate, a streamed or too short run, every
// candidate failed) or a stop was requested. fit() calls it for one process; the studio before a run.
struct RaceOptions {
    std::size_t n = 0, d = 0, k = 0;        // for the reason
    std::function<void(Solver&)> prepare;  // the data (and weights) of a fresh solver
    std::stop_token stop;
};
std::optional<SolverChoice> race_auto_solver(const SolverConfig& config, const Matrix<double>& initial,
                                             const RaceOptions& options);

// How the race judges a candidate from its timed steps (each step's time and distance
// count). A bounded solver's step costs a part over every point (its bounds, the update)
// and a part per distance, and its count keeps falling as points settle, long after the
// race; Lloyd's does not. So where time rises with the count, the race projects the step
// at half the fewest count it saw (least squares over the steps): between the race's last
// step and a step with no distances, as a long run's later steps are. At no distances the
// projection chose Hamerly over Exponion at 10^6 x 16-D, k = 1000, 2.5x slower to converge
// (H100, docs/lab/gpu-logs/2026-11-27-auto-settled). Projected only when the fit is sound: at
// least three steps, counts spread by a quarter or more, time rising with the count
// (R² >= 0.8) and a positive time at none; otherwise the fastest step. `judged_ms` is the
// projection, or the fastest step.
struct RaceJudgement {
    double fastest_ms = 0.0;
    double judged_ms = 0.0;
    bool projected = false;
};
RaceJudgement judge_race_steps(const std::vector<double>& times_ms, const std::vector<double>& distances);

// The race's winner among `raced` (in race order), or nullopt when empty. The bounded
// solvers (all but Lloyd), whose steps all get cheaper as points settle, rank by their
// fastest steps, ties to the earlier; the best of them meets Lloyd, whose steps do not,
// with its judged step (the projection where there is one) against Lloyd's fastest.
// Projecting every bounded solver instead chose Hamerly over Exponion at 10^6 x 4-D,
// k = 1000: Exponion's step falls as much without its distance count saying so (H100).
struct RacedCandidate {
    Algorithm algorithm = Algorithm::Lloyd;
    RaceJudgement judgement;
};
std::optional<std::size_t> pick_race_winner(const std::vector<RacedCandidate>& raced);

// Throws kms::InputError naming `source_name` unless `weights` holds n finite,
// non-negative numbers with a positive sum (the first bad one is named by index).
void check_sample_weight(const std::vector<double>& weights, std::size_t n, const std::string& source_name);

// The sample weights a fit in `precision` can work with (issue 39), checked by fit()
// on host data (and rows read out of core) before any work: kms::InputError naming `source_name` and the range
// when a positive weight is outside [smallest normal, largest] of the precision, or the
// weights' sum times the largest |x| overflows (the update's weighted sums). The data's
// own range (squared distances that overflow or underflow) every solver checks
// (check_solver_data, kms/solver_support.hpp). Refused, not rescaled.
void check_weight_range(const Matrix<double>& points, const std::vector<double>* weights, Precision precision,
                        const std::string& source_name);
void check_weight_range(const Matrix<float>& points, const std::vector<double>* weights, Precision precision,
                        const std::string& source_name);
// The same out of core: the data's largest |x| from a pass over rows [first_row, first_row +
// rows) of `source`, `block_rows` at a time (only where the weights pass their own check).
void check_weight_range(const RowSource& source, std::size_t first_row, std::size_t rows,
                        const std::vector<double>* weights, Precision precision, std::size_t block_rows,
                        const std::string& source_name);
// kms::InputError naming `source_name` unless every centroid coordinate and the inertia are
// finite: a non-finite result is never reported as success (what overflowed, what helps).
void check_finite_result(const Matrix<double>& centroids, double inertia, Precision precision,
                         const std::string& source_name);

}  // namespace kms
