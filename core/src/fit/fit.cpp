// The fit layer (kms/fit.hpp): one loop, one stop rule, one finalisation, the
// restarts and the choice of the best, for every client and back end.
#include "kms/fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "kms/backends.hpp"
#include "kms/communicator.hpp"
#include "kms/device_group_solver.hpp"
#include "kms/error.hpp"
#include "kms/short_number.hpp"
#include "kms/sparse.hpp"

namespace kms {

void FitOptions::validate() const {
    if (k < 1) throw UsageError("--k must be at least 1");
    if (n_init < 1 || n_init > kMaxRestarts)
        throw UsageError("--n-init must be between 1 and " + std::to_string(kMaxRestarts));
    if (n_init > 1 && init.method == InitMethod::File)
        throw UsageError("--n-init " + std::to_string(n_init) +
                         " needs a seeded initialisation: centroids from a file give the same run every time");
    solver.validate();
}

int KMeansRun::advance(int max_steps, std::stop_token stop, const std::function<bool(const IterationStats&)>& on_step) {
    int steps = 0;
    solver_->set_stop_token(stop);
    while (!solver_->converged() && (max_steps < 0 || steps < max_steps) && !stop.stop_requested()) {
        IterationStats stats;
        try {
            stats = solver_->step();
        } catch (const Cancelled&) {
            break;  // the solver kept the last completed iteration
        }
        ++steps;
        step_time_ms_ += stats.time_total_ms;
        const StopReason reason = solver_->stop_reason();
        // Stopped with labels that belong to the previous centroids: relabel, so
        // labels and centroids agree (scikit-learn's final E-step).
        if (reason == StopReason::Tolerance || reason == StopReason::MaxIterations) solver_->finalize_labels();
        if (on_step && !on_step(stats)) break;
    }
    solver_->set_stop_token({});  // a later edit or restart must not meet this run's stop request
    return steps;
}

namespace {

// --solver auto's race (BackendEntry::race_candidates): steps each candidate takes
// from the first restart's centroids; the first builds bounds, the rest are timed.
// A bounded solver's steps get cheaper as points settle and Lloyd's do not, so a
// candidate is judged by its fastest timed step, or by its projected later step
// (judge_race_steps): with the median of steps 2-4, 10^6 200-D blobs at k = 128 chose
// Lloyd (1.40 ms against Exponion's 2.84), which took 279 ms to converge where Exponion
// took 112 (H200); with the fastest step, 10^7 2-D blobs at k = 100 chose Lloyd (0.46 ms
// against Hamerly's 0.5), which took 70 ms where Hamerly took 65 (H100).
constexpr int kRaceSteps = 6;

std::string format_ms(double ms) {
    char text[32];
    std::snprintf(text, sizeof text, ms < 1.0 ? "%.3f" : ms < 100.0 ? "%.2f" : "%.0f", ms);
    return text;
}

// Each candidate in turn (one solver on the device at a time): a fresh solver from
// `prepare`, kRaceSteps steps from `initial`, judged by judge_race_steps and ranked by
// pick_race_winner; `note` says what ran and why the winner won.
// A candidate that fails (memory) drops out; none left, or a stop request: nullopt.
std::optional<Algorithm> race_solvers(const std::vector<Algorithm>& candidates, const SolverConfig& base,
                                      const Matrix<double>& initial, std::stop_token stop,
                                      const std::function<void(Solver&)>& prepare, std::string& note) {
    std::vector<RacedCandidate> raced;
    std::string timings, dropped;
    bool any_projected = false;
    for (const Algorithm algorithm : candidates) {
        if (stop.stop_requested()) return std::nullopt;
        SolverConfig config = base;
        config.algorithm = algorithm;
        std::vector<double> times, distances;
        try {
            std::unique_ptr<Solver> solver = make_solver(config);
            prepare(*solver);
            solver->set_initial_centroids(initial);
            solver->set_stop_token(stop);
            for (int step = 0; step < kRaceSteps && !solver->converged(); ++step) {
                const IterationStats stats = solver->step();
                if (step == 0) continue;
                times.push_back(stats.time_total_ms);
                distances.push_back(static_cast<double>(stats.point_centroid_distances));
            }
        } catch (const Cancelled&) {
            return std::nullopt;
        } catch (const Error& error) {
            dropped += std::string(dropped.empty() ? "" : "; ") + std::string(to_string(algorithm)) + " failed: " + error.what();
            continue;
        }
        if (times.empty()) continue;  // converged in one step: nothing to time
        const RaceJudgement judged = judge_race_steps(times, distances);
        const bool shown = judged.projected && algorithm != Algorithm::Lloyd;  // Lloyd is judged by its fastest step
        timings += std::string(timings.empty() ? "" : ", ") + std::string(to_string(algorithm)) + " " +
                   format_ms(judged.fastest_ms) + (shown ? " (" + format_ms(judged.judged_ms) + " projected)" : "");
        any_projected = any_projected || shown;
        raced.push_back({algorithm, judged});
    }
    const std::optional<std::size_t> winner = pick_race_winner(raced);
    if (!winner) return std::nullopt;
    const Algorithm chosen = raced[*winner].algorithm;
    note = std::string(to_string(chosen)) + ": the fastest on this data of " + timings + " ms a step (the fastest of steps 2-" +
           std::to_string(kRaceSteps) + " from the initial centroids" +
           (any_projected ? "; projected: a bounded solver's step at half its fewest distance evaluations, as more "
                            "points settle, which the best bounded solver is judged by against Lloyd"
                          : "") +
           ")" + (dropped.empty() ? "" : " (" + dropped + ")");
    return chosen;
}

}  // namespace

std::vector<std::size_t> rank_blocks(std::size_t global_rows, std::size_t d, const FitOptions& options) {
    if (!options.ranks) throw Error("rank_blocks needs FitOptions::ranks");
    return partition_rows(global_rows, options.k, d, options.ranks->size(), options.solver.packages,
                          std::max(1, static_cast<int>(options.devices.size())));
}

namespace {
// What auto races on this back end for this run (see race_auto_solver()); empty: no race.
std::vector<Algorithm> race_candidates_for(const SolverConfig& config, std::size_t n, std::size_t d, std::size_t k) {
    if (config.algorithm != Algorithm::Auto || config.stream_chunk > 0 || config.max_iterations <= kRaceSteps) return {};
    const BackendEntry* entry = find_backend(config.backend);
    if (!entry || !entry->race_candidates) return {};
    std::vector<Algorithm> candidates = entry->race_candidates(n, d, k);
    if (candidates.size() < 2) candidates.clear();
    return candidates;
}

// The run's solver: the back end's, or with FitOptions::devices a group of them.
std::unique_ptr<Solver> make_fit_solver(const SolverConfig& config, const FitOptions& options) {
    return options.devices.empty() ? make_solver(config) : make_device_group_solver(config, options.devices);
}

// A run's own way to make its solver (sparse points: a solver made with them); empty:
// make_fit_solver.
using SolverMaker = std::function<std::unique_ptr<Solver>(const SolverConfig&)>;

// Running out of memory in a fit: the sizes, and what halves them.
Error out_of_memory(std::size_t n, std::size_t d, const FitOptions& options, const std::string& source_name) {
    const double bytes = double(n) * double(d) * (options.solver.precision == Precision::F32 ? 4.0 : 8.0);
    return Error(source_name + ": not enough memory to fit k = " + std::to_string(options.k) + " clusters to " +
                 std::to_string(n) + " points × " + std::to_string(d) + " coordinates (" +
                 std::string(to_string(options.solver.precision)) + ": " + short_number(bytes / 1048576.0) +
                 " MiB of points, with the solver's labels, bounds and sums on top)" +
                 (options.solver.precision == Precision::F64 ? "; --precision f32 halves it" : ""));
}

// Restart r's initialisation: seed S + r, the sample weights, the stop token.
InitOptions restart_init(const FitOptions& options, int restart, std::stop_token stop) {
    InitOptions init = options.init;
    init.seed = options.init.seed + static_cast<std::uint64_t>(restart);
    if (options.sample_weight) init.sample_weight = *options.sample_weight;
    if (!init.cancel.stop_possible()) init.cancel = std::move(stop);
    return init;
}

// What every run does before its steps, for fit() and prepare_run(): the checks, the
// solver (--solver auto by the back end's rule, or raced on the data from the first
// restart's centroids), and its data. `attach(solver, first_row, rows)` hands the
// points (with FitOptions::ranks, this rank's block of them) to a solver, `seed(init)`
// chooses a restart's initial centroids (host data: the back end's initialiser or the
// CPU's; device data: the back end's device initialiser); `given`: centroids to start
// from instead (the race starts from them); `make`: the solver, where not make_fit_solver's.
struct RunStart {
    std::optional<KMeansRun> run;
    SolverConfig solver;                         // what runs (auto resolved)
    std::string solver_choice;                   // auto: what it chose and why
    std::optional<Matrix<double>> first_initial; // the first restart's centroids, when the race chose them
    InitStats first_stats;                       // and what seeding them took
    std::size_t first_row = 0, rows = 0;         // a rank's block: whole packages of the update (partition_rows)
};

template <typename Attach, typename Seed>
RunStart start_run(std::size_t n, std::size_t d, const FitOptions& options, std::stop_token stop,
                   const std::string& source_name, const std::function<void()>& check_data, Attach attach, Seed seed,
                   const Matrix<double>* given, const SolverMaker& make = {}) {
    const auto made = [&](const SolverConfig& config) { return make ? make(config) : make_fit_solver(config, options); };
    // Under ranks, a failure of the set-up or of a seeding (k > n, initial centroids
    // of the wrong shape: every rank meets it alike) is agreed on before the next
    // collective, so that it is reported once and no rank is left waiting.
    RunStart start;
    start.rows = n;
    const bool will_race = !options.ranks && options.devices.empty() &&
                           !race_candidates_for(options.solver, n, d, options.k).empty();
    agreed(options.ranks.get(), [&] {
        if (n == 0) throw InputError::whole(source_name, "no points to cluster");
        if (options.k > n)
            throw InputError::whole(source_name, "k = " + std::to_string(options.k) +
                                                     " must be between 1 and the number of points n = " +
                                                     std::to_string(n));
        if (options.sample_weight) check_sample_weight(*options.sample_weight, n, source_name);
        if (check_data) check_data();  // the weights against the data (check_weight_range), where the points are on the host
        const SolverChoice choice = choose_solver(options.solver, n, d, options.k);
        start.solver = options.solver;
        start.solver.algorithm = choice.algorithm;
        start.solver_choice = choice.reason;
        if (!will_race) start.run.emplace(made(start.solver));  // racing: the winner, below
        if (options.ranks) {
            const std::vector<std::size_t> first = rank_blocks(n, d, options);
            start.first_row = first[static_cast<std::size_t>(options.ranks->rank())];
            start.rows = first[static_cast<std::size_t>(options.ranks->rank()) + 1] - start.first_row;
        }
    });
    // The points (this rank's block) and weights of any solver of the run.
    auto prepare = [&options, &start, &source_name, attach, stop](Solver& solver) {
        solver.set_stop_token(stop);  // the data's state (Elkan's n·k bounds) is allocated answering it
        try {
            attach(solver, start.first_row, start.rows);
        } catch (const InputError& error) {  // the solver's refusal of "the data" (their range): name them
            if (error.source() == "the data") throw InputError::whole(source_name, error.reason());
            throw;
        }
        if (options.sample_weight)
            solver.set_sample_weight(
                options.ranks ? std::make_shared<const std::vector<double>>(
                                    options.sample_weight->begin() + static_cast<std::ptrdiff_t>(start.first_row),
                                    options.sample_weight->begin() + static_cast<std::ptrdiff_t>(start.first_row + start.rows))
                              : options.sample_weight);
    };
    if (start.run) agreed(options.ranks.get(), [&] { prepare(start.run->solver()); });
    if (!will_race) return start;

    // --solver auto where the back end races its candidates on the data (one process:
    // ranks would have to agree on timings): the first restart's centroids are chosen
    // now, each candidate runs a few steps from them, and the fastest runs the fit.
    if (given) {
        start.first_initial = *given;
    } else {
        InitOptions init = restart_init(options, 0, stop);
        init.stats = &start.first_stats;
        try {
            start.first_initial = seed(init);
        } catch (const Error&) {
            if (!stop.stop_requested()) throw;
        }
    }
    if (start.first_initial && !stop.stop_requested()) {  // one solver's data on the device at a time
        RaceOptions race{n, d, options.k, prepare, stop};
        if (const std::optional<SolverChoice> raced = race_auto_solver(options.solver, *start.first_initial, race)) {
            start.solver_choice = raced->reason;
            start.solver.algorithm = raced->algorithm;
        }
    }
    start.run.emplace(made(start.solver));  // the winner, or the rule's choice
    prepare(start.run->solver());
    return start;
}

// The one fit loop over any data (start_run() for `check_data`, `attach` and `seed`).
template <typename Attach, typename Seed>
FitResult run_fit_steps(std::size_t n, std::size_t d, const FitOptions& options, FitObserver* observer,
                        std::stop_token stop, const std::string& source_name, const std::function<void()>& check_data,
                        Attach attach, Seed seed, const SolverMaker& make = {}) {
    if (options.ranks) stop = {};  // every rank runs the same steps (kms/fit.hpp)
    RunStart start = start_run(n, d, options, stop, source_name, check_data, attach, seed, nullptr, make);
    FitResult result;
    result.solver = start.solver;
    result.solver_choice = start.solver_choice;
    const std::size_t first_row = start.first_row, rows = start.rows;
    std::optional<Matrix<double>>& first_initial = start.first_initial;
    KMeansRun& run = *start.run;
    result.data_address = run.solver().data_address();

    bool have_best = false;
    // The kept labels' buffer, touched now: taking a restart's labels at its end (or
    // when a stop request ends it) then copies into memory already mapped (40 MB at
    // 10^7 points cost ~100 ms of page faults on the development VM, at cancel time).
    result.labels.assign(n, -1);
    for (int r = 0; r < options.n_init && !stop.stop_requested(); ++r) {
        InitOptions init = restart_init(options, r, stop);
        InitStats init_stats;
        init.stats = &init_stats;
        Matrix<double> initial;
        bool cancelled = false;
        agreed(options.ranks.get(), [&] {
            try {
                if (r == 0 && first_initial) {
                    initial = std::move(*first_initial);  // the race's centroids
                    init_stats = start.first_stats;
                } else {
                    initial = seed(init);
                }
            } catch (const Error&) {
                cancelled = stop.stop_requested();  // cancelled while choosing centroids
                if (!cancelled) throw;
            }
        });
        if (cancelled) break;
        try {
            run.solver().set_initial_centroids(initial);  // allocates the bounds, answering `stop`
        } catch (const Cancelled&) {
            break;  // as a stop while seeding: the restarts done so far stand
        }
        run.reset();
        if (observer) observer->restart_started(r, init.seed, initial);
        run.advance(-1, stop, [&](const IterationStats& stats) {
            if (observer) observer->iteration_done(r, stats, run.solver());
            return true;
        });

        const Solver& solver = run.solver();
        RestartResult restart;
        restart.restart = r;
        restart.seed = init.seed;
        restart.iterations = solver.iteration();
        restart.stop_reason = solver.converged() ? solver.stop_reason() : StopReason::Cancelled;
        restart.inertia = solver.iteration() > 0 ? solver.inertia() : 0.0;
        restart.time_ms = run.step_time_ms();
        restart.init = init_stats;
        result.restarts.push_back(restart);
        result.total_time_ms += restart.time_ms;
        if (observer) observer->restart_done(restart);

        // Lowest inertia wins; ties keep the earlier (lower) seed. A restart
        // cancelled before its first step has no state worth keeping.
        const bool candidate = restart.iterations > 0;
        if (candidate && (!have_best || restart.inertia < result.inertia || !std::isfinite(result.inertia))) {
            have_best = true;
            result.best_restart = r;
            result.initial_centroids = std::move(initial);
            result.centroids = solver.centroids();
            std::copy(solver.labels().begin(), solver.labels().end(),
                      result.labels.begin() + static_cast<std::ptrdiff_t>(first_row));
            result.inertia = restart.inertia;
            result.iterations = restart.iterations;
            result.stop_reason = restart.stop_reason;
        }
    }
    if (options.ranks && have_best) {  // every rank's block of labels, in rank (= row) order
        const std::vector<std::int64_t> mine(result.labels.begin() + static_cast<std::ptrdiff_t>(first_row),
                                             result.labels.begin() + static_cast<std::ptrdiff_t>(first_row + rows));
        const std::vector<std::int64_t> all = options.ranks->allgather(std::span<const std::int64_t>(mine));
        if (all.size() != n) throw Error("the ranks' label blocks do not add up to the data set's rows");
        std::copy(all.begin(), all.end(), result.labels.begin());
    }
    if (!have_best) result.labels.clear();  // no restart completed a step
    // Never a non-finite result reported as success (issue 39: weights of 1e307 gave a NaN inertia, "converged").
    if (have_best) check_finite_result(result.centroids, result.inertia, options.solver.precision, source_name);
    if (stop.stop_requested()) result.stop_reason = StopReason::Cancelled;
    return result;
}

// Running out of memory anywhere in a fit is a message with the sizes (issue 39: a row of
// 25 M columns ended in "terminate called after throwing std::bad_alloc").
template <typename Attach, typename Seed>
FitResult run_fit(std::size_t n, std::size_t d, const FitOptions& options, FitObserver* observer, std::stop_token stop,
                  const std::string& source_name, const std::function<void()>& check_data, Attach attach, Seed seed) {
    try {
        return run_fit_steps(n, d, options, observer, stop, source_name, check_data, attach, seed);
    } catch (const std::bad_alloc&) {
        throw out_of_memory(n, d, options, source_name);
    }
}

// The solver's data: all points, or (FitOptions::ranks) this rank's rows, read in place.
template <typename T>
void attach_block(Solver& solver, const std::shared_ptr<const Matrix<T>>& points, const FitOptions& options,
                  std::size_t first_row, std::size_t rows) {
    if (!options.ranks) {
        solver.set_data(points);
        return;
    }
    solver.set_partition(RowPartition{options.ranks, points->rows(), first_row});
    solver.set_data(std::make_shared<const Matrix<T>>(
        Matrix<T>::view(rows, points->cols(), points->data() + first_row * points->cols(), points)));
}

// --devices: the fit loop over one solver that is a group of devices (a rank
// each, a thread of this process: kms/device_group_solver.hpp); the devices past
// the data's blocks (partition_rows) stay idle. Seeded on the first listed device
// from all rows.
void check_devices_backend(const FitOptions& options) {
    const BackendEntry* entry = find_backend(options.solver.backend);
    if (!entry || !entry->device_count)
        throw UsageError("--devices needs a back end with devices (--backend cuda); " +
                         options.solver.backend_name() + " has none");
}

// The devices of the whole run that hold rows: the non-empty blocks of partition_rows over
// them (and over the MPI ranks, each driving its --devices: then every one holds rows).
std::size_t devices_holding_rows(std::size_t n, std::size_t d, const FitOptions& options) {
    const int ranks = options.ranks ? options.ranks->size() : 1;
    const std::vector<std::size_t> first =
        partition_rows(n, options.k, d, ranks * static_cast<int>(options.devices.size()), options.solver.packages);
    std::size_t used = 0;
    for (std::size_t b = 0; b + 1 < first.size(); ++b) used += first[b + 1] > first[b];
    return used;
}

template <typename T>
FitResult fit_over_devices(const std::shared_ptr<const Matrix<T>>& points, const FitOptions& options,
                           FitObserver* observer, std::stop_token stop, const std::string& source_name) {
    check_devices_backend(options);
    if (points->rows() == 0) throw InputError::whole(source_name, "no points to cluster");
    SolverConfig seeding = options.solver;
    seeding.cuda_device = options.devices.front();
    FitResult result = run_fit(
        points->rows(), points->cols(), options, observer, stop, source_name,
        [&] { check_weight_range(*points, options.sample_weight.get(), options.solver.precision, source_name); },
        [&](Solver& solver, std::size_t first_row, std::size_t rows) { attach_block(solver, points, options, first_row, rows); },
        [&](const InitOptions& init) { return initialize_centroids_for(seeding, *points, options.k, init, source_name); });
    result.devices_used = devices_holding_rows(points->rows(), points->cols(), options);
    return result;
}

// Host points the solver reads as they are (every row, or with ranks this rank's
// block of them, or over several devices).
template <typename T>
FitResult fit_host_rows(const std::shared_ptr<const Matrix<T>>& points, const FitOptions& options,
                        FitObserver* observer, std::stop_token stop, const std::string& source_name) {
    if (!options.devices.empty()) return fit_over_devices(points, options, observer, stop, source_name);
    return run_fit(
        points->rows(), points->cols(), options, observer, stop, source_name,
        [&] { check_weight_range(*points, options.sample_weight.get(), options.solver.precision, source_name); },
        [&](Solver& solver, std::size_t first_row, std::size_t rows) { attach_block(solver, points, options, first_row, rows); },
        [&](const InitOptions& init) {
            return initialize_centroids_for(options.solver, *points, options.k, init, source_name);
        });
}

}  // namespace

FitResult fit(std::shared_ptr<const Matrix<double>> points, const FitOptions& options, FitObserver* observer,
              std::stop_token stop, const std::string& source_name) {
    options.validate();
    if (!points) throw InputError::whole(source_name, "no points to cluster");
    return fit_host_rows(points, options, observer, stop, source_name);
}

FitResult fit(std::shared_ptr<const Matrix<float>> points, const FitOptions& options, FitObserver* observer,
              std::stop_token stop, const std::string& source_name) {
    options.validate();
    if (!points) throw InputError::whole(source_name, "no points to cluster");
    const BackendEntry* entry = find_backend(options.solver.backend);
    if (!entry || !entry->reads_host_float)  // widened once; the back end copies to its device anyway
        return fit(std::make_shared<const Matrix<double>>(points->cast<double>()), options, observer, stop,
                   source_name);
    return fit_host_rows(points, options, observer, stop, source_name);
}

PreparedRun prepare_run(std::shared_ptr<const Matrix<double>> points, const FitOptions& options,
                        const Matrix<double>& given, std::stop_token stop, const std::string& source_name) {
    FitOptions run_options = options;
    if (given.rows() > 0) run_options.k = given.rows();
    run_options.validate();
    if (!points) throw InputError::whole(source_name, "no points to cluster");
    if (options.ranks) throw Error("prepare_run() runs in one process: not over MPI ranks (fit() is)");
    if (given.rows() > 0 && given.cols() != points->cols())
        throw Error("initial centroids have " + std::to_string(given.cols()) + " coordinates, the data " +
                    std::to_string(points->cols()));
    PreparedRun prepared;
    if (given.rows() == 0 && run_options.n_init > 1) {
        // Every restart to its end by fit(), without what only a watched run needs;
        // the run then replays the best one from its initial centroids.
        FitOptions restarts = run_options;
        restarts.solver.record_point_status = false;
        restarts.solver.compute_inertia = false;
        FitResult fitted = fit(points, restarts, nullptr, stop, source_name);
        if (fitted.stop_reason == StopReason::Cancelled) throw Cancelled("restarts cancelled");
        prepared.solver = run_options.solver;
        prepared.solver.algorithm = fitted.solver.algorithm;  // auto: what fit() chose (or raced) and ran
        prepared.solver_choice = std::move(fitted.solver_choice);
        prepared.initial_centroids = std::move(fitted.initial_centroids);
        prepared.init = fitted.restarts[static_cast<std::size_t>(fitted.best_restart)].init;
        prepared.restarts = std::move(fitted.restarts);
        prepared.best_restart = fitted.best_restart;
        prepared.run = std::make_unique<KMeansRun>(make_fit_solver(prepared.solver, run_options));
        prepared.run->solver().set_data(points);
    } else {
        // As fit() over host rows: a device group seeds on its first device.
        SolverConfig seeding = run_options.solver;
        if (!run_options.devices.empty()) seeding.cuda_device = run_options.devices.front();
        const auto seed = [&](const InitOptions& init) {
            return initialize_centroids_for(seeding, *points, run_options.k, init, source_name);
        };
        RunStart start = start_run(
            points->rows(), points->cols(), run_options, stop, source_name,
            [&] { check_weight_range(*points, run_options.sample_weight.get(), run_options.solver.precision, source_name); },
            [&](Solver& solver, std::size_t, std::size_t) { solver.set_data(points); }, seed,
            given.rows() > 0 ? &given : nullptr);
        prepared.solver = start.solver;
        prepared.solver_choice = std::move(start.solver_choice);
        if (given.rows() > 0) {
            prepared.initial_centroids = given;
        } else if (start.first_initial) {
            prepared.initial_centroids = std::move(*start.first_initial);
            prepared.init = start.first_stats;
        } else {
            InitOptions init = restart_init(run_options, 0, stop);
            init.stats = &prepared.init;
            prepared.initial_centroids = seed(init);
        }
        prepared.run = std::make_unique<KMeansRun>(std::move(*start.run));
    }
    prepared.run->solver().set_initial_centroids(prepared.initial_centroids);
    prepared.run->solver().set_stop_token({});  // allocated: the setup's stop request must not reach later edits
    return prepared;
}

namespace {
// fit_block(): the rows this rank holds must be its partition_rows block.
template <typename T>
FitResult fit_block_of(const std::shared_ptr<const Matrix<T>>& block, std::size_t global_rows, std::size_t first_row,
                       const FitOptions& options, FitObserver* observer, const std::string& source_name) {
    options.validate();
    if (!options.ranks) throw Error("fit_block needs FitOptions::ranks (the communicator of the ranks holding the blocks)");
    if (!block) throw InputError::whole(source_name, "no points to cluster");
    if (!options.devices.empty()) check_devices_backend(options);
    FitResult result = run_fit(
        global_rows, block->cols(), options, observer, {}, source_name,
        [&] { check_weight_range(*block, options.sample_weight.get(), options.solver.precision, source_name); },
        [&](Solver& solver, std::size_t expected_first, std::size_t expected_rows) {
            if (expected_first != first_row || expected_rows != block->rows())
                throw Error("rank " + std::to_string(options.ranks->rank()) + " holds rows [" + std::to_string(first_row) +
                            ", " + std::to_string(first_row + block->rows()) + ") but its block is [" +
                            std::to_string(expected_first) + ", " + std::to_string(expected_first + expected_rows) +
                            "): read the block kms::partition_rows gives");
            solver.set_partition(RowPartition{options.ranks, global_rows, first_row});
            solver.set_data(block);
        },
        [&](const InitOptions& init) {
            return initialize_centroids(*block, options.k, init, RowPartition{options.ranks, global_rows, first_row},
                                        source_name);
        });
    if (!options.devices.empty()) result.devices_used = devices_holding_rows(global_rows, block->cols(), options);
    return result;
}
}  // namespace

FitResult fit_block(std::shared_ptr<const Matrix<double>> block, std::size_t global_rows, std::size_t first_row,
                    const FitOptions& options, FitObserver* observer, const std::string& source_name) {
    return fit_block_of(block, global_rows, first_row, options, observer, source_name);
}

FitResult fit_block(std::shared_ptr<const Matrix<float>> block, std::size_t global_rows, std::size_t first_row,
                    const FitOptions& options, FitObserver* observer, const std::string& source_name) {
    return fit_block_of(block, global_rows, first_row, options, observer, source_name);
}

namespace {
// Sparse points (kms/sparse.hpp): the one loop over a sparse solver, which holds the
// points from its making. One process on the CPU: no ranks, devices or back-end race.
template <typename T>
FitResult fit_sparse(std::shared_ptr<const SparseMatrix<T>> points, FitOptions options, FitObserver* observer,
                     std::stop_token stop, const std::string& source_name) {
    options.validate();
    if (!points) throw InputError::whole(source_name, "no points to cluster");
    if (options.ranks || !options.devices.empty() || options.solver.backend == Backend::Cuda)
        throw UsageError("sparse input runs in one process on the CPU (backend 'omp' or 'seq'), without ranks or devices");
    points->check(source_name);
    const bool auto_solver = options.solver.algorithm == Algorithm::Auto;
    if (auto_solver) options.solver.algorithm = Algorithm::Lloyd;
    const int seeding_threads = options.solver.backend == Backend::Sequential ? 1 : options.solver.threads;
    FitResult result = run_fit_steps(
        points->rows, points->cols, options, observer, stop, source_name, {},
        [](Solver&, std::size_t, std::size_t) {},  // made with the points
        [&](InitOptions init) {
            if (init.threads == 0) init.threads = seeding_threads;
            return initialize_centroids(*points, options.k, init, source_name);
        },
        [&](const SolverConfig& config) { return make_sparse_solver(points, config); });
    if (auto_solver) result.solver_choice = "sparse input: lloyd (elkan gives the same labels and centroids)";
    return result;
}
}  // namespace

FitResult fit(std::shared_ptr<const SparseMatrix<double>> points, const FitOptions& options, FitObserver* observer,
              std::stop_token stop, const std::string& source_name) {
    return fit_sparse(std::move(points), options, observer, stop, source_name);
}

FitResult fit(std::shared_ptr<const SparseMatrix<float>> points, const FitOptions& options, FitObserver* observer,
              std::stop_token stop, const std::string& source_name) {
    return fit_sparse(std::move(points), options, observer, stop, source_name);
}

FitResult fit(std::shared_ptr<const DeviceMatrix> points, const FitOptions& options, FitObserver* observer,
              std::stop_token stop, const std::string& source_name) {
    options.validate();
    if (!points) throw InputError::whole(source_name, "no points to cluster");
    if (options.ranks || !options.devices.empty())
        throw Error("a fit over ranks or several devices takes host data, not device arrays");
    return run_fit(
        points->rows, points->cols, options, observer, stop, source_name, {},  // device data: unchecked range
        [&](Solver& solver, std::size_t, std::size_t) { solver.set_device_data(points); },
        [&](const InitOptions& init) {
            return initialize_centroids_for(options.solver, *points, options.k, init, source_name);
        });
}

FitResult fit(std::shared_ptr<const RowSource> source, std::size_t buffer_bytes, const FitOptions& given,
              FitObserver* observer, std::stop_token stop) {
    given.validate();
    if (!source) throw InputError::whole("data", "no points to cluster");
    const std::string& source_name = source->name();
    if (!given.devices.empty()) throw UsageError("out of core: --devices is not taken (the CPU back ends read the file)");
    // (A CUDA solver streaming the file with the weights resident was not run on a GPU yet.)
    if (given.sample_weight && given.solver.backend == Backend::Cuda)
        throw UsageError("out of core: sample weights (--weights) run on the CPU back ends (omp, seq), not yet on a "
                         "CUDA device");
    FitOptions options = given;
    std::string choice;
    const std::size_t n = source->rows(), d = source->cols();
    if (options.solver.algorithm == Algorithm::Auto) {
        // The back end's rule for the shape, kept where its choice reads the file by blocks
        // (the caller sized the buffers beside its bounds: the CLI's plan chose with its limit).
        const SolverChoice picked = out_of_core_choice(choose_solver(options.solver, n, d, options.k), options.solver, options.k);
        options.solver.algorithm = picked.algorithm;
        choice = picked.reason;
    }
    // This process's rows: all, or (ranks) its block of partition_rows, as start_run splits them.
    const auto my_rows = [&]() -> std::pair<std::size_t, std::size_t> {
        if (!options.ranks) return {0, n};
        const std::vector<std::size_t> first = rank_blocks(n, d, options);
        const auto rank = static_cast<std::size_t>(options.ranks->rank());
        return {first[rank], first[rank + 1] - first[rank]};
    };
    // The weights (every row's, 8 bytes a row, in memory) against the data's range: a pass
    // over this process's rows, as fit_block checks a rank's block.
    const std::function<void()> check_weights = [&] {
        const auto [first_row, rows] = my_rows();
        check_weight_range(*source, first_row, rows, options.sample_weight.get(), options.solver.precision,
                           std::max<std::size_t>(1, buffer_bytes / std::max<std::size_t>(1, d * sizeof(double))),
                           source_name);
    };
    FitResult result = run_fit(
        n, d, options, observer, stop, source_name, options.sample_weight ? check_weights : std::function<void()>{},
        [&](Solver& solver, std::size_t first_row, std::size_t rows) {
            if (options.ranks) solver.set_partition(RowPartition{options.ranks, n, first_row});
            solver.set_row_source(source, first_row, rows, buffer_bytes);
        },
        [&](const InitOptions& init) {
            const auto [first_row, rows] = my_rows();
            const RowPartition partition{options.ranks, n, first_row};
            return initialize_centroids(*source, first_row, rows, options.k, init,
                                        options.ranks ? &partition : nullptr, buffer_bytes, source_name);
        });
    if (!choice.empty()) result.solver_choice = choice;
    return result;
}

void check_sample_weight(const std::vector<double>& weights, std::size_t n, const std::string& source_name) {
    if (weights.size() != n)
        throw InputError::whole(source_name, std::to_string(weights.size()) + " sample weights for n = " +
                                                 std::to_string(n) + " points");
    double total = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(weights[i]) || weights[i] < 0.0)
            throw InputError::whole(source_name, "sample weight " + std::to_string(i + 1) + " (" +
                                                     short_number(weights[i]) +
                                                     ") is not a non-negative finite number");
        total += weights[i];
    }
    if (!(total > 0.0)) throw InputError::whole(source_name, "the sample weights are all zero");
    if (!std::isfinite(total)) throw InputError::whole(source_name, "the sample weights' sum overflows");
}

namespace {
template <typename Source>
Assignment assign_host(std::shared_ptr<const Matrix<Source>> points, const Matrix<double>& centroids,
                       const SolverConfig& config, std::shared_ptr<const std::vector<double>> sample_weight) {
    config.validate();
    if (!points) throw Error("no points to assign");
    if (sample_weight && sample_weight->size() != points->rows())
        throw Error(std::to_string(sample_weight->size()) + " sample weights for " +
                    std::to_string(points->rows()) + " points");
    if (centroids.cols() != points->cols())
        throw Error("the centroids have " + std::to_string(centroids.cols()) + " coordinates, the data " +
                    std::to_string(points->cols()));
    // The back end's own search; else its Lloyd solver's relabelling when it can hold
    // these centroids (k <= n); else the first back end with a search (every back end's
    // labels and inertia are those of the CPU's search, bit for bit).
    const auto search_of = [](const BackendEntry* entry) {
        if constexpr (std::is_same_v<Source, float>) return entry ? entry->assign_float : decltype(entry->assign_float){};
        else return entry ? entry->assign : decltype(entry->assign){};
    };
    const double* weights = sample_weight ? sample_weight->data() : nullptr;
    if (const auto search = search_of(find_backend(config.backend))) return search(*points, centroids, config, weights);
    if (centroids.rows() <= points->rows()) {
        SolverConfig lloyd = config;
        lloyd.algorithm = Algorithm::Lloyd;
        lloyd.record_point_status = false;
        lloyd.compute_inertia = false;
        auto solver = make_solver(lloyd);
        solver->set_data(std::move(points));
        if (sample_weight) solver->set_sample_weight(sample_weight);
        solver->set_initial_centroids(centroids);
        solver->finalize_labels();
        return {solver->labels(), solver->inertia()};
    }
    for (const Backend backend : all_backends())
        if (const auto search = search_of(find_backend(backend))) return search(*points, centroids, config, weights);
    throw Error("no back end can assign points to k = " + std::to_string(centroids.rows()) + " > n = " +
                std::to_string(points->rows()) + " centroids");
}
}  // namespace

Assignment assign(std::shared_ptr<const Matrix<double>> points, const Matrix<double>& centroids,
                  const SolverConfig& config, std::shared_ptr<const std::vector<double>> sample_weight) {
    return assign_host(std::move(points), centroids, config, std::move(sample_weight));
}

Assignment assign(std::shared_ptr<const Matrix<float>> points, const Matrix<double>& centroids,
                  const SolverConfig& config, std::shared_ptr<const std::vector<double>> sample_weight) {
    return assign_host(std::move(points), centroids, config, std::move(sample_weight));
}

Assignment assign(std::shared_ptr<const DeviceMatrix> points, const Matrix<double>& centroids,
                  const SolverConfig& config, std::shared_ptr<const std::vector<double>> sample_weight) {
    config.validate();
    if (!points) throw Error("no points to assign");
    if (sample_weight && sample_weight->size() != points->rows)
        throw Error(std::to_string(sample_weight->size()) + " sample weights for " + std::to_string(points->rows) +
                    " points");
    if (centroids.cols() != points->cols)
        throw Error("the centroids have " + std::to_string(centroids.cols()) + " coordinates, the data " +
                    std::to_string(points->cols));
    if (centroids.rows() > points->rows)
        throw Error("assigning device data to k = " + std::to_string(centroids.rows()) +
                    " centroids needs k <= n = " + std::to_string(points->rows));
    SolverConfig lloyd = config;
    lloyd.algorithm = Algorithm::Lloyd;
    lloyd.record_point_status = false;
    lloyd.compute_inertia = false;
    auto solver = make_solver(lloyd);
    solver->set_device_data(std::move(points));
    if (sample_weight) solver->set_sample_weight(sample_weight);
    solver->set_initial_centroids(centroids);
    solver->finalize_labels();
    Assignment result;
    result.labels = solver->labels();
    result.inertia = solver->inertia();
    return result;
}

RaceJudgement judge_race_steps(const std::vector<double>& times_ms, const std::vector<double>& distances) {
    RaceJudgement judged;
    if (times_ms.empty() || times_ms.size() != distances.size()) return judged;
    judged.fastest_ms = *std::min_element(times_ms.begin(), times_ms.end());
    judged.judged_ms = judged.fastest_ms;
    const std::size_t steps = times_ms.size();
    const auto [fewest, most] = std::minmax_element(distances.begin(), distances.end());
    if (steps < 3 || !(*most >= 1.25 * *fewest)) return judged;  // too few steps, or counts too alike to fit
    double mean_d = 0.0, mean_t = 0.0;
    for (std::size_t s = 0; s < steps; ++s) {
        mean_d += distances[s] / static_cast<double>(steps);
        mean_t += times_ms[s] / static_cast<double>(steps);
    }
    double dd = 0.0, dt = 0.0, tt = 0.0;
    for (std::size_t s = 0; s < steps; ++s) {
        dd += (distances[s] - mean_d) * (distances[s] - mean_d);
        dt += (distances[s] - mean_d) * (times_ms[s] - mean_t);
        tt += (times_ms[s] - mean_t) * (times_ms[s] - mean_t);
    }
    if (!(dt > 0.0) || !(tt > 0.0) || dt * dt < 0.8 * dd * tt) return judged;  // time not rising with the count
    const double slope = dt / dd, at_none = mean_t - slope * mean_d;
    const double projected = at_none + slope * 0.5 * *fewest;
    if (!(at_none > 0.0) || !(projected < judged.fastest_ms)) return judged;
    judged.judged_ms = projected;
    judged.projected = true;
    return judged;
}

std::optional<std::size_t> pick_race_winner(const std::vector<RacedCandidate>& raced) {
    std::optional<std::size_t> lloyd, bounded;
    for (std::size_t c = 0; c < raced.size(); ++c) {
        if (raced[c].algorithm == Algorithm::Lloyd) {
            if (!lloyd) lloyd = c;
        } else if (!bounded || raced[c].judgement.fastest_ms < raced[*bounded].judgement.fastest_ms) {
            bounded = c;
        }
    }
    if (!lloyd || !bounded) return lloyd ? lloyd : bounded;
    const double bounded_ms = raced[*bounded].judgement.judged_ms, lloyd_ms = raced[*lloyd].judgement.fastest_ms;
    if (bounded_ms < lloyd_ms || (bounded_ms == lloyd_ms && *bounded < *lloyd)) return bounded;
    return lloyd;
}

std::optional<SolverChoice> race_auto_solver(const SolverConfig& config, const Matrix<double>& initial,
                                             const RaceOptions& options) {
    const std::vector<Algorithm> candidates = race_candidates_for(config, options.n, options.d, options.k);
    if (candidates.empty() || options.stop.stop_requested()) return std::nullopt;
    std::string note;
    const std::optional<Algorithm> winner = race_solvers(candidates, config, initial, options.stop, options.prepare, note);
    if (!winner) return std::nullopt;
    return SolverChoice{*winner, note + " (n = " + std::to_string(options.n) + ", d = " + std::to_string(options.d) +
                                     ", k = " + std::to_string(options.k) + ")"};
}

}  // namespace kms
