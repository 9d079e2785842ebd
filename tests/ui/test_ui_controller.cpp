// The studio's models and worker, offscreen: loading (and a failed load keeping
// the old data), the transport (step, step back, replay, reset, re-seed, run,
// stop), comparisons sharing initial centroids, the solver panel, the options
// of scripted runs, the projection and the palette.
#include <QtTest>

#include <atomic>

#include <QApplication>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <optional>
#include <fstream>
#include <set>

#include "compare/compare_session.hpp"
#include "kms/backends.hpp"
#include "kms/error.hpp"
#include "kms/generate.hpp"
#include "kms/init.hpp"
#include "run/run_controller.hpp"
#include "run/solver_panel.hpp"
#include "run/solver_worker.hpp"
#include "studio/studio_options.hpp"
#include "view/point_colours.hpp"
#include "view/projection.hpp"

#include "test_support.hpp"

using namespace kms;
using kms::test::wait_for;
using namespace kms::ui;

namespace {

RunSetup small_setup(std::size_t k, Algorithm algorithm = Algorithm::Lloyd, Backend backend = Backend::Sequential) {
    RunSetup setup;
    setup.k = k;
    setup.config.algorithm = algorithm;
    setup.config.backend = backend;
    setup.init.seed = 3;
    return setup;
}

// A controller with generated data, set up and ready at iteration 0.
void make_ready(RunController& controller, const char* spec, std::size_t k, std::uint64_t seed = 5) {
    controller.set_setup(small_setup(k));
    controller.generate(QString::fromLatin1(spec), seed);
    QVERIFY2(wait_for([&] { return controller.ready() && !controller.busy(); }), "controller never became ready");
}

}  // namespace

class TestUiController : public QObject {
    Q_OBJECT
private slots:
    void generate_sets_up_iteration_zero() {
        RunController controller;
        QSignalSpy status(&controller, &RunController::statusMessage);
        make_ready(controller, "blobs:n=600,k=4,d=2", 4);
        // The status bar says what the seeding cost (issue 41: the distance count).
        QVERIFY(!status.isEmpty());
        const QString seeded = status.last().at(0).toString();
        QVERIFY2(seeded.startsWith(QStringLiteral("Seeded by kmeans++")) &&
                     seeded.contains(QStringLiteral("2.4e+03 point distances (100 % of n·k)")),
                 qPrintable(seeded));
        QCOMPARE(controller.dataset().n(), std::size_t(600));
        QCOMPARE(controller.latest_iteration(), 0);
        QCOMPARE(controller.initial_centroids().rows(), std::size_t(4));
        QVERIFY(!controller.displayed_labels());  // nothing assigned before the first step
        // The initial centroids are those of the engine's init for the same seed.
        const Dataset data = generate_dataset("blobs:n=600,k=4,d=2", 5);
        InitOptions init;
        init.seed = 3;
        QVERIFY(controller.initial_centroids() == initialize_centroids(data.points, 4, init, data.name));
    }

    void load_error_keeps_previous_data() {
        RunController controller;
        make_ready(controller, "blobs:n=500,k=3,d=2", 3);
        const auto before = controller.dataset().dataset;
        const Matrix<double> centroids_before = controller.initial_centroids();
        QSignalSpy failed(&controller, &RunController::loadFailed);

        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("bad.csv"));
        {
            std::ofstream out(bad.toStdString());
            out << "1.0,2.0\n3.0,oops\n5.0,6.0\n";
        }
        controller.load_file(bad);
        QVERIFY(wait_for([&] { return failed.count() == 1; }));
        const QString message = failed.at(0).at(0).toString();
        QVERIFY2(message.contains(QStringLiteral("bad.csv")) && message.contains(QStringLiteral(":2")),
                 qPrintable(QStringLiteral("message should name the file and line 2: ") + message));
        QCOMPARE(controller.dataset().dataset, before);
        QVERIFY(controller.ready());
        QVERIFY(controller.initial_centroids() == centroids_before);

        controller.load_file(dir.filePath(QStringLiteral("missing.csv")));
        QVERIFY(wait_for([&] { return failed.count() == 2; }));
        QVERIFY(failed.at(1).at(0).toString().contains(QStringLiteral("missing.csv")));
        QCOMPARE(controller.dataset().dataset, before);

        // The old data still runs.
        controller.step();
        QVERIFY(wait_for([&] { return controller.latest_iteration() == 1; }));
    }

    void step_back_restores_earlier_iterations() {
        RunController controller;
        make_ready(controller, "blobs:n=800,k=5,d=3,spread=0.3", 5);
        for (int i = 1; i <= 3; ++i) {
            controller.step();
            QVERIFY(wait_for([&] { return controller.latest_iteration() == i; }));
        }
        std::vector<Matrix<double>> centroids;
        std::vector<std::vector<std::int32_t>> labels;
        for (const HistoryEntry& entry : controller.history()) {
            centroids.push_back(entry.centroids);
            labels.push_back(entry.labels ? *entry.labels : std::vector<std::int32_t>());
        }
        QVERIFY(!(centroids[1] == centroids[0]));  // the blobs moved the centroids
        controller.step_back();
        controller.step_back();
        QCOMPARE(controller.displayed_iteration(), 1);
        QVERIFY(controller.displayed_centroids() == centroids[1]);
        QVERIFY(wait_for([&] { return controller.displayed_labels() != nullptr; }));
        QCOMPARE(*controller.displayed_labels(), labels[1]);
        controller.step_back();
        QCOMPARE(controller.displayed_iteration(), 0);
        QVERIFY(controller.displayed_centroids() == controller.initial_centroids());
        controller.step_back();  // nothing before iteration 0
        QCOMPARE(controller.displayed_iteration(), 0);
        // Step replays the kept history without running the solver again.
        controller.step();
        controller.step();
        QCOMPARE(controller.displayed_iteration(), 2);
        QCOMPARE(controller.latest_iteration(), 3);
        QVERIFY(controller.displayed_centroids() == centroids[2]);
        controller.step();
        controller.step();  // past the history: a real solver step
        QVERIFY(wait_for([&] { return controller.latest_iteration() == 4; }));
        QCOMPARE(controller.displayed_iteration(), 4);
    }

    void worker_relabel_matches_solver_labels() {
        // Labels of dropped history entries are recomputed from the centroids of
        // the iteration before: they must equal what the solver assigned, in the
        // run's own precision.
        for (Precision precision : {Precision::F64, Precision::F32}) {
            SolverWorker worker;
            std::optional<SetupResult> ready;
            std::vector<StepResult> steps;
            LabelsPtr relabelled;
            connect(&worker, &SolverWorker::setupDone, this, [&](const SetupResult& r) { ready = r; });
            connect(&worker, &SolverWorker::stepped, this, [&](const StepResult& r) { steps.push_back(r); });
            connect(&worker, &SolverWorker::relabelled, this,
                    [&](const LabelsPtr& l, int, bool, quint64) { relabelled = l; });
            DatasetBundle bundle;
            bundle.dataset = std::make_shared<Dataset>(generate_dataset("blobs:n=1500,k=6,d=4,spread=0.4", 9));
            RunSetup setup = small_setup(6, Algorithm::Hamerly);
            setup.config.precision = precision;
            worker.setup(bundle, setup, Matrix<double>(), 1);
            QVERIFY(ready.has_value());
            for (int i = 0; i < 3; ++i) worker.step(1);
            QCOMPARE(steps.size(), std::size_t(3));
            worker.relabel(steps[1].centroids, 3, false, 1);
            QVERIFY(relabelled && steps[2].labels);
            QCOMPARE(*relabelled, *steps[2].labels);
            worker.relabel(ready->initial_centroids, 1, false, 1);
            QCOMPARE(*relabelled, *steps[0].labels);
        }
    }

    // Auto on a back end that races (the GPU; here a stand-in CUDA entry over the
    // sequential solvers): the worker races the candidates from the run's initial
    // centroids and runs the winner, named in the description; its steps are every
    // candidate's (exact), as with restarts, where fit() raced.
    void worker_races_auto_on_a_racing_back_end() {
        const std::optional<BackendEntry> original =
            find_backend(Backend::Cuda) ? std::optional<BackendEntry>(*find_backend(Backend::Cuda)) : std::nullopt;
        BackendEntry racing;
        racing.backend = Backend::Cuda;
        racing.label = "stand-in for CUDA";
        racing.algorithms = {Algorithm::Lloyd, Algorithm::Hamerly, Algorithm::Exponion};
        racing.availability = [] { return BackendAvailability{true, {}}; };
        std::vector<Algorithm> made;
        racing.make_solver = [&made](const SolverConfig& config) {
            made.push_back(config.algorithm);
            SolverConfig cpu = config;
            cpu.backend = Backend::Sequential;
            return make_solver(cpu);
        };
        racing.race_candidates = [](std::size_t, std::size_t, std::size_t) {
            return std::vector<Algorithm>{Algorithm::Lloyd, Algorithm::Hamerly, Algorithm::Exponion};
        };
        register_backend(racing);
        DatasetBundle bundle;
        bundle.dataset = std::make_shared<Dataset>(generate_dataset("blobs:n=6000,k=12,d=2,spread=0.2", 4));
        std::vector<Matrix<double>> centroids;
        for (const Algorithm algorithm : {Algorithm::Lloyd, Algorithm::Auto})
            for (const int restarts : {1, 2}) {
                SolverWorker worker;
                std::optional<SetupResult> ready;
                std::vector<StepResult> steps;
                connect(&worker, &SolverWorker::setupDone, this, [&](const SetupResult& r) { ready = r; });
                connect(&worker, &SolverWorker::stepped, this, [&](const StepResult& r) { steps.push_back(r); });
                RunSetup setup = small_setup(12, algorithm, Backend::Cuda);
                setup.n_init = restarts;
                made.clear();
                worker.setup(bundle, setup, Matrix<double>(), 1);
                QVERIFY(ready.has_value());
                const std::string description = ready->description;
                if (algorithm == Algorithm::Auto) {
                    // The three candidates raced (one restart: by the worker, each made once, in
                    // order), then the winner made for the run and named in the description.
                    if (restarts == 1) {
                        QCOMPARE(made.size(), std::size_t(4));
                        QVERIFY(made[0] == Algorithm::Lloyd && made[1] == Algorithm::Hamerly &&
                                made[2] == Algorithm::Exponion);
                    }
                    QVERIFY2(description.rfind(std::string(to_string(made.back())) + "/", 0) == 0, description.c_str());
                }
                for (int i = 0; i < 5; ++i) worker.step(1);
                QCOMPARE(steps.size(), std::size_t(5));
                centroids.push_back(steps.back().centroids);
            }
        QVERIFY(centroids[2] == centroids[0]);  // auto, one restart: Lloyd's centroids
        QVERIFY(centroids[3] == centroids[1]);  // auto, two restarts: the same best restart as Lloyd's
        if (!original) racing.availability = [] { return BackendAvailability{false, "not built into this test"}; };
        register_backend(original ? *original : racing);  // the real CUDA entry again, or none usable
    }

    // Several devices in the studio: the Devices control of a back end with devices, and
    // the worker stepping a device group (rows split, one solver per device, stepped
    // together) to one device's centroids and labels at every step, restarts included.
    // A stand-in for CUDA with three "devices" whose solvers are the CPU's.
    void studio_steps_a_device_group() {
        const std::optional<BackendEntry> original =
            find_backend(Backend::Cuda) ? std::optional<BackendEntry>(*find_backend(Backend::Cuda)) : std::nullopt;
        BackendEntry devices;
        devices.backend = Backend::Cuda;
        devices.label = "stand-in for CUDA, three devices";
        devices.algorithms = {Algorithm::Lloyd, Algorithm::Hamerly};
        devices.availability = [] { return BackendAvailability{true, {}}; };
        devices.device_count = [] { return 3; };
        std::atomic<int> made{0};
        devices.make_solver = [&made](const SolverConfig& config) {
            ++made;
            SolverConfig cpu = config;
            cpu.backend = Backend::Sequential;
            return make_solver(cpu);
        };
        register_backend(devices);
        {
            SolverPanel panel;
            RunSetup setup = small_setup(7, Algorithm::Hamerly, Backend::Cuda);
            setup.devices = {0, 1};
            panel.set_setup(setup);
            QCOMPARE(panel.setup().devices, (std::vector<int>{0, 1}));  // round-trips
            setup.devices.clear();
            panel.set_setup(setup);
            QVERIFY(panel.setup().devices.empty());  // one device: the back end's own solver
            setup.config.backend = Backend::Sequential;
            setup.devices = {0, 1, 2};
            panel.set_setup(setup);
            QVERIFY(panel.setup().devices.empty());  // a back end without devices offers none
        }
        DatasetBundle bundle;
        bundle.dataset = std::make_shared<Dataset>(generate_dataset("blobs:n=30000,k=9,d=2,spread=0.1", 6));
        for (const int restarts : {1, 2})
            for (const Algorithm algorithm : {Algorithm::Lloyd, Algorithm::Hamerly}) {
                std::vector<std::vector<StepResult>> runs;
                std::vector<std::string> descriptions;
                for (const std::vector<int>& group : {std::vector<int>{}, std::vector<int>{0, 1, 2}}) {
                    SolverWorker worker;
                    std::optional<SetupResult> ready;
                    std::vector<StepResult> steps;
                    connect(&worker, &SolverWorker::setupDone, this, [&](const SetupResult& r) { ready = r; });
                    connect(&worker, &SolverWorker::stepped, this, [&](const StepResult& r) { steps.push_back(r); });
                    RunSetup setup = small_setup(9, algorithm, Backend::Cuda);
                    setup.n_init = restarts;
                    setup.devices = group;
                    made = 0;
                    worker.setup(bundle, setup, Matrix<double>(), 1);
                    QVERIFY(ready.has_value());
                    descriptions.push_back(ready->description);
                    for (int i = 0; i < 6; ++i) worker.step(1);
                    QCOMPARE(steps.size(), std::size_t(6));
                    if (!group.empty()) QVERIFY(made >= 3);  // a solver per device
                    runs.push_back(std::move(steps));
                }
                QVERIFY2(descriptions[1].find("on devices 0,1,2") != std::string::npos, descriptions[1].c_str());
                for (std::size_t i = 0; i < runs[0].size(); ++i) {
                    QVERIFY(runs[1][i].centroids == runs[0][i].centroids);
                    QVERIFY(runs[1][i].labels && *runs[1][i].labels == *runs[0][i].labels);
                    QVERIFY(runs[1][i].point_status && *runs[1][i].point_status == *runs[0][i].point_status);
                    QCOMPARE(runs[1][i].stats.point_centroid_distances, runs[0][i].stats.point_centroid_distances);
                }
            }
        if (!original) devices.availability = [] { return BackendAvailability{false, "not built into this test"}; };
        devices.device_count = nullptr;
        register_backend(original ? *original : devices);  // the real CUDA entry again, or none usable
    }

    void reset_and_reseed() {
        RunController controller;
        // Heavily overlapping blobs: many iterations before convergence.
        make_ready(controller, "blobs:n=1500,k=6,d=2,spread=0.6", 6);
        const Matrix<double> initial = controller.initial_centroids();
        auto stopped = [&] { return !controller.running() && (controller.latest_iteration() >= 3 || controller.converged()); };
        controller.run_steps(3);
        QVERIFY(wait_for(stopped));
        QCOMPARE(controller.latest_iteration(), 3);
        const Matrix<double> third = controller.history()[3].centroids;
        controller.reset();
        QCOMPARE(controller.latest_iteration(), 0);
        QVERIFY(controller.initial_centroids() == initial);
        controller.run_steps(3);
        QVERIFY(wait_for(stopped));
        QCOMPARE(controller.latest_iteration(), 3);
        QVERIFY(controller.history()[3].centroids == third);  // same start, same run
        controller.reseed(1234);
        QVERIFY(wait_for([&] { return controller.ready(); }));
        QCOMPARE(controller.latest_iteration(), 0);
        QVERIFY(!(controller.initial_centroids() == initial));
    }

    void stop_during_run_returns_promptly() {
        RunController controller;
        make_ready(controller, "blobs:n=2000,k=8,d=2", 8);
        QSignalSpy running(&controller, &RunController::runningChanged);
        controller.set_delay_ms(5000);  // a teaching delay: stop must not wait for it
        controller.run();
        QVERIFY(wait_for([&] { return controller.latest_iteration() >= 1; }));
        QElapsedTimer timer;
        timer.start();
        controller.pause();
        QVERIFY(wait_for([&] { return !controller.running(); }, 3000));
        QVERIFY2(timer.elapsed() < 1000, qPrintable(QStringLiteral("stop took %1 ms").arg(timer.elapsed())));
        QCOMPARE(controller.latest_iteration(), 1);

        // A fast run on more data: pause lands within a step or two.
        controller.set_delay_ms(0);
        RunSetup setup = small_setup(64);
        setup.config.max_iterations = 100000;
        setup.config.tol = 0.0;
        controller.set_setup(setup);
        controller.generate(QStringLiteral("uniform:n=60000,d=4"), 2);
        QVERIFY(wait_for([&] { return controller.ready() && !controller.busy(); }));
        controller.run();
        QVERIFY(wait_for([&] { return controller.latest_iteration() >= 2; }));
        timer.restart();
        controller.pause();
        QVERIFY(wait_for([&] { return !controller.running(); }, 5000));
        QVERIFY2(timer.elapsed() < 3000, qPrintable(QStringLiteral("stop took %1 ms").arg(timer.elapsed())));
        QVERIFY(!controller.converged());
        // The newest labels arrive after the stop even if the fast run skipped them.
        QVERIFY(wait_for([&] { return controller.displayed_labels() != nullptr; }));
    }

    void compare_runs_share_initial_centroids() {
        RunController primary;
        make_ready(primary, "blobs:n=900,k=5,d=3,spread=0.5", 5);
        CompareSession session;
        std::vector<SolverConfig> configs(3);
        configs[0].algorithm = Algorithm::Lloyd;
        configs[1].algorithm = Algorithm::Elkan;
        configs[1].backend = Backend::OpenMP;
        configs[2].algorithm = Algorithm::Hamerly;
        configs[2].precision = Precision::F32;
        session.start(primary.dataset(), primary.setup(), configs, Matrix<double>());
        QVERIFY(wait_for([&] { return session.all_ready(); }));
        for (std::size_t i = 1; i < session.size(); ++i)
            QVERIFY(session.run(i).initial_centroids() == session.run(0).initial_centroids());
        QVERIFY(session.run(0).initial_centroids() == primary.initial_centroids());  // same seed, same init
        session.run_steps(3);
        QVERIFY(wait_for([&] {
            if (session.any_running()) return false;
            for (std::size_t i = 0; i < session.size(); ++i)
                if (session.run(i).latest_iteration() < 3 && !session.run(i).converged()) return false;
            return true;
        }));
        // Lloyd and Elkan in double are exact: the same centroids every iteration.
        const int shared = std::min(session.run(0).latest_iteration(), session.run(1).latest_iteration());
        for (int i = 0; i <= shared; ++i)
            QVERIFY(session.run(0).history()[std::size_t(i)].centroids == session.run(1).history()[std::size_t(i)].centroids);
        QVERIFY(session.run(2).solver_description().contains(QStringLiteral("f32")));
        // Explicit initial centroids are used as given by every run.
        Matrix<double> placed = primary.initial_centroids();
        placed(0, 0) += 0.25;
        session.start(primary.dataset(), primary.setup(), configs, placed);
        QVERIFY(wait_for([&] { return session.all_ready(); }));
        for (std::size_t i = 0; i < session.size(); ++i) QVERIFY(session.run(i).initial_centroids() == placed);
    }

    void dragging_an_initial_centroid_moves_it_in_the_plane() {
        RunController controller;
        make_ready(controller, "blobs:n=400,k=3,d=2", 3);
        const Matrix<double> before = controller.initial_centroids();
        QVERIFY(controller.move_initial_centroid(1, 0.5, -0.25));
        QVERIFY(std::abs(controller.initial_centroids()(1, 0) - 0.5) < 1e-12);
        QVERIFY(std::abs(controller.initial_centroids()(1, 1) + 0.25) < 1e-12);
        QCOMPARE(controller.initial_centroids()(0, 0), before(0, 0));
        controller.step();
        QVERIFY(wait_for([&] { return controller.latest_iteration() == 1; }));
        // The solver started from the moved centroid.
        QVERIFY(std::abs(controller.history()[0].centroids(1, 0) - 0.5) < 1e-12);
        QVERIFY(!controller.move_initial_centroid(1, 0.0, 0.0));  // only before the first step
    }

    void solver_panel_greys_unavailable_back_ends() {
        SolverPanel panel;
        for (Backend backend : all_backends()) {
            const BackendAvailability availability = backend_availability(backend);
            QCOMPARE(panel.backend_enabled(backend), availability.available);
            if (!availability.available)
                QVERIFY(panel.backend_tooltip(backend).contains(QString::fromStdString(availability.reason)));
        }
        RunSetup setup;
        setup.k = 17;
        setup.config.algorithm = Algorithm::Elkan;
        setup.config.backend = Backend::OpenMP;
        setup.config.threads = 3;
        setup.config.binding = ThreadBinding::Spread;
        setup.config.precision = Precision::F32;
        setup.config.max_iterations = 42;
        setup.config.tol = 1e-6;
        setup.config.empty_policy = EmptyClusterPolicy::Farthest;
        setup.n_init = 4;
        setup.init.method = InitMethod::Maximin;
        setup.init.seed = 99;
        QSignalSpy edited(&panel, &SolverPanel::setupEdited);
        panel.set_setup(setup);
        QCOMPARE(edited.count(), 0);  // showing a setup is not an edit
        const RunSetup shown = panel.setup();
        QCOMPARE(shown.k, setup.k);
        QCOMPARE(shown.config.describe(), setup.config.describe());
        QCOMPARE(shown.config.threads, 3);
        QCOMPARE(shown.config.binding, ThreadBinding::Spread);  // the Placement control round-trips
        RunSetup sequential = setup;
        sequential.config.backend = Backend::Sequential;
        sequential.config.binding = ThreadBinding::None;
        panel.set_setup(sequential);
        QCOMPARE(panel.setup().config.binding, ThreadBinding::None);  // placement is OpenMP's only
        sequential.config.validate();
        panel.set_setup(setup);
        QCOMPARE(shown.config.max_iterations, 42);
        QCOMPARE(shown.config.tol, 1e-6);
        QVERIFY(shown.config.empty_policy == EmptyClusterPolicy::Farthest);
        QVERIFY(shown.init.method == InitMethod::Maximin);
        QCOMPARE(shown.init.seed, std::uint64_t(99));
        QCOMPARE(shown.n_init, 4);
    }

    void studio_options() {
        const StudioOptions options = parse_studio_options(
            {"--generate", "blobs:n=100,k=3", "--k", "3", "--solver", "hamerly", "--backend=seq", "--precision",
             "f32", "--steps", "4", "--screenshot", "out.png", "--compare", "lloyd/seq,elkan/omp/f64", "--colour",
             "bounds", "--voronoi", "--size", "800x600"});
        QCOMPARE(options.setup.k, std::size_t(3));
        QVERIFY(options.setup.config.algorithm == Algorithm::Hamerly);
        QVERIFY(options.setup.config.backend == Backend::Sequential);
        QCOMPARE(options.steps, 4);
        QVERIFY(options.scripted());
        QCOMPARE(options.compare.size(), std::size_t(2));
        QVERIFY(options.compare[1].algorithm == Algorithm::Elkan && options.compare[1].backend == Backend::OpenMP);
        QVERIFY(options.compare[1].precision == Precision::F64);
        QVERIFY(options.compare[0].precision == Precision::F32);  // inherits --precision
        QVERIFY(options.colour == ColourMode::Bounds && options.voronoi);
        QCOMPARE(options.width, 800);
        QCOMPARE(parse_studio_options({"--steps", "converge"}).steps, -1);

        auto refused = [](std::vector<std::string> args, const char* expected) {
            try {
                parse_studio_options(args);
            } catch (const Error& error) {
                return std::string(error.what()).find(expected) != std::string::npos;
            }
            return false;
        };
        QVERIFY(refused({"--k", "0"}, "--k"));
        QVERIFY(refused({"--k", "abc"}, "--k"));
        QVERIFY(refused({"--solver", "kmedoids"}, "--solver"));
        QVERIFY(refused({"--compare", "lloyd/seq"}, "2 to 7"));
        QVERIFY(refused({"--compare", "lloyd/gpu,elkan"}, "gpu"));
        QVERIFY(refused({"--input", "a.csv", "--generate", "blobs"}, "either"));
        QVERIFY(refused({"--bogus"}, "--bogus"));
        QVERIFY(refused({"--steps"}, "needs a value"));
        QVERIFY(refused({"--size", "10x10"}, "--size"));
    }

    void projection_finds_the_principal_plane() {
        // Points spread mostly along u = (1, 1, 0)/√2, less along w = (0, 0, 1), little along v.
        const std::size_t n = 400;
        Matrix<double> points(n, 3);
        for (std::size_t i = 0; i < n; ++i) {
            const double a = std::sin(double(i) * 0.37) * 10.0;   // along u
            const double b = std::cos(double(i) * 1.91) * 3.0;    // along w
            const double c = std::sin(double(i) * 2.71) * 0.1;    // along v = (1, -1, 0)/√2
            points(i, 0) = 5.0 + (a + c) / std::sqrt(2.0);
            points(i, 1) = -2.0 + (a - c) / std::sqrt(2.0);
            points(i, 2) = 1.0 + b;
        }
        const Projection2D pca = Projection2D::fit(points, ProjectionMode::Pca);
        QVERIFY(pca.mode() == ProjectionMode::Pca);
        const auto& axes = pca.axes();
        QVERIFY(std::abs(std::abs(axes[0] + axes[1]) / std::sqrt(2.0) - 1.0) < 1e-6);  // first axis ∥ u
        QVERIFY(std::abs(std::abs(axes[5]) - 1.0) < 1e-6);                              // second axis ∥ w
        double dot = 0;
        for (int j = 0; j < 3; ++j) dot += axes[std::size_t(j)] * axes[std::size_t(3 + j)];
        QVERIFY(std::abs(dot) < 1e-9);
        // unproject(project(x)) lands on the plane: projecting again gives the same 2D point.
        const auto p = pca.project(points.row(7));
        const std::vector<double> back = pca.unproject(p[0], p[1]);
        const auto q = pca.project(back.data());
        QVERIFY(std::abs(p[0] - q[0]) < 1e-9 && std::abs(p[1] - q[1]) < 1e-9);

        const Projection2D first = Projection2D::fit(points, ProjectionMode::FirstTwoDimensions);
        const auto r = first.project(points.row(3));
        QCOMPARE(r[0], points(3, 0));
        QCOMPARE(r[1], points(3, 1));
        const std::vector<float> all = first.project_all(points);
        QCOMPARE(all.size(), 2 * n);
        QCOMPARE(all[7], float(points(3, 1)));
    }

    void palette_distinguishes_many_clusters() {
        const std::vector<PackedRgba> palette = cluster_palette(300);
        std::set<PackedRgba> unique(palette.begin(), palette.end());
        QCOMPARE(unique.size(), palette.size());
        QVERIFY(!unique.count(kUnassignedColour));
        for (std::size_t i = 0; i < palette.size(); ++i) QCOMPARE(palette[i], cluster_colour(i));
        QCOMPARE(red_of(pack_rgba(1, 2, 3)), std::uint8_t(1));
        QCOMPARE(blue_of(pack_rgba(1, 2, 3)), std::uint8_t(3));
    }
};

QTEST_MAIN(TestUiController)
#include "test_ui_controller.moc"
