// fit() over sparse points (kms/sparse.hpp): checks as fit() does, then the restarts
// (seeds s, s+1, ...; the lowest inertia kept, ties to the lower seed), each stepped by
// KMeansRun (the step loop, the stop rule and the final relabel of every fit) over a
// sparse solver. One process on the CPU: no ranks, devices or back-end race.
#include <cmath>
#include <string>
#include <utility>

#include "kms/error.hpp"
#include "kms/fit.hpp"
#include "kms/sparse.hpp"

namespace kms {
namespace {

template <typename T>
FitResult fit_sparse(std::shared_ptr<const SparseMatrix<T>> points, FitOptions options, FitObserver* observer,
                     std::stop_token stop, const std::string& source_name) {
    options.validate();
    if (!points) throw InputError::whole(source_name, "no points to cluster");
    if (options.ranks || !options.devices.empty() || options.solver.backend == Backend::Cuda)
        throw UsageError("sparse input runs in one process on the CPU (backend 'omp' or 'seq'), without ranks or devices");
    points->check(source_name);
    const std::size_t n = points->rows;
    if (options.k > n)
        throw InputError::whole(source_name, "k = " + std::to_string(options.k) +
                                                 " must be between 1 and the number of points n = " + std::to_string(n));
    if (options.sample_weight) check_sample_weight(*options.sample_weight, n, source_name);

    FitResult result;
    result.solver = options.solver;
    if (options.solver.algorithm == Algorithm::Auto) {
        result.solver.algorithm = Algorithm::Lloyd;
        result.solver_choice = "sparse input: lloyd (elkan gives the same labels and centroids)";
    }
    KMeansRun run(make_sparse_solver(points, result.solver));
    if (options.sample_weight) run.solver().set_sample_weight(options.sample_weight);
    result.data_address = run.solver().data_address();

    bool have_best = false;
    for (int r = 0; r < options.n_init && !stop.stop_requested(); ++r) {
        InitOptions init = options.init;
        init.seed = options.init.seed + static_cast<std::uint64_t>(r);
        if (options.sample_weight) init.sample_weight = *options.sample_weight;
        if (!init.cancel.stop_possible()) init.cancel = stop;
        if (init.threads == 0) init.threads = options.solver.backend == Backend::Sequential ? 1 : options.solver.threads;
        Matrix<double> initial;
        try {
            initial = initialize_centroids(*points, options.k, init, source_name);
        } catch (const Error&) {
            if (!stop.stop_requested()) throw;
            break;  // cancelled while choosing centroids
        }
        run.solver().set_initial_centroids(initial);
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
        result.restarts.push_back(restart);
        result.total_time_ms += restart.time_ms;
        if (observer) observer->restart_done(restart);
        if (restart.iterations > 0 && (!have_best || restart.inertia < result.inertia)) {
            have_best = true;
            result.best_restart = r;
            result.initial_centroids = std::move(initial);
            result.centroids = solver.centroids();
            result.labels = solver.labels();
            result.inertia = restart.inertia;
            result.iterations = restart.iterations;
            result.stop_reason = restart.stop_reason;
        }
    }
    if (stop.stop_requested()) result.stop_reason = StopReason::Cancelled;
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

}  // namespace kms
