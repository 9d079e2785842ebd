#pragma once
// The studio's model of one run: the dataset, the solver settings, the initial
// centroids and the history of every iteration (centroids + statistics, labels
// where memory allows), with the transport (step, step back, run, pause, run to
// convergence, reset, re-seed). The solver itself lives in a SolverWorker on a
// QThread of its own; widgets only display what this object publishes.
#include <QObject>
#include <QString>
#include <QThread>

#include <cstdint>
#include <memory>
#include <vector>

#include "kms/run_file.hpp"
#include "run/run_types.hpp"

namespace kms::ui {

class SolverWorker;

struct HistoryEntry {
    Matrix<double> centroids;  // after this iteration's update (entry 0: the initial centroids)
    IterationStats stats;      // entry 0: empty
    LabelsPtr labels;          // labels of this iteration's assignment; null if dropped or not sent
    PointStatusPtr point_status;
    // The run stopped here on tol or max-iter, so the fit layer relabelled against
    // the final centroids: `labels` are those, and the assignment half-step's own
    // labels (against the previous centroids) are fetched apart.
    bool finalized = false;
    LabelsPtr assign_labels;   // finalized entries only, once fetched
    double handover_ms = 0.0;  // the worker's copy of labels and status for the GUI (not solver time)
};

// Which half of an iteration is shown: the assignment (labels new, centroids
// not yet moved) or the update (centroids moved to their cluster means).
enum class Phase { Assign, Update };

class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    // ---- data (loaded in the worker; on failure the current dataset stays)
    void load_file(const QString& path);
    // Files loaded from now on are latitude/longitude tables (when `geo.enabled`);
    // geo-* generators are geographic anyway.
    void set_geo_options(const GeoOptions& geo) { geo_ = geo; }
    void generate(const QString& spec, std::uint64_t seed);
    // Use data already loaded (compare view: every run shares one dataset).
    void set_dataset(const DatasetBundle& bundle);
    // Data, settings and initial centroids at once (a comparison's runs).
    void start(const DatasetBundle& bundle, const RunSetup& setup, const Matrix<double>& initial_centroids);
    // Data from a replay file, with its options and initial centroids (iteration 0);
    // with step_to_recorded, then stepped as far as the saved run was (RunFile::steps).
    void open_run(const RunFile& run, bool step_to_recorded = false);
    // Points drawn by hand (or any data made in the studio), with their classes.
    void set_drawn_data(Dataset data);
    // This run as a replay file: the generator spec and seed, or the points themselves.
    RunFile run_file() const;
    // Where the data came from, for the Data panel: "file PATH", "generated SPEC, seed S", ...
    QString data_source() const { return data_source_; }
    // The generator spec and seed of the data shown; an empty spec for data from a file.
    const std::string& generator_spec() const { return generator_spec_; }
    std::uint64_t generator_seed() const { return generator_seed_; }
    const DatasetBundle& dataset() const { return bundle_; }
    bool has_data() const { return bundle_.dataset != nullptr; }
    void set_projection_mode(ProjectionMode mode);
    ProjectionMode projection_mode() const { return projection_mode_; }

    // ---- settings (a change sets the run up again from iteration 0)
    void set_setup(const RunSetup& setup);
    const RunSetup& setup() const { return setup_; }
    // New initial centroids from the init method with this seed.
    void reseed(std::uint64_t seed);
    // Use these initial centroids (user-placed, or shared by a comparison).
    void set_initial_centroids(const Matrix<double>& centroids);
    // Move one initial centroid in the 2D view (before the first step only).
    bool move_initial_centroid(std::size_t index, double x, double y);
    // Add a centroid at a 2D view position / remove one (before the first step only;
    // k follows). False when not at iteration 0 (or removing the last centroid).
    bool add_initial_centroid(double x, double y);
    bool remove_initial_centroid(std::size_t index);
    // May initial centroids be edited now (iteration 0, not running)?
    bool centroids_editable() const { return ready_ && !running_ && latest_iteration() == 0; }
    // On a new data set, take k from its ground truth (number of classes) when it
    // has one; off while a script or the user has fixed k.
    void set_k_from_data(bool on) { k_from_data_ = on; }
    const Matrix<double>& initial_centroids() const { return initial_centroids_; }
    bool ready() const { return ready_; }
    QString solver_description() const { return description_; }

    // ---- transport
    void step();
    void step_back();
    void run();                // steps with the current delay until paused or converged
    void run_steps(int steps); // exactly `steps` more iterations (fewer if it converges)
    void run_to_convergence(); // no delay
    void pause();
    void reset();              // same initial centroids, iteration 0
    // Step and step back by half-steps: the assignment, then the update.
    void set_half_steps(bool on);
    bool half_steps() const { return half_steps_; }
    void set_delay_ms(int delay_ms);
    int delay_ms() const { return delay_ms_; }
    // Deliver device label pointers (CUDA back end) through deviceLabelsReady.
    void set_offer_device_labels(bool offer);

    bool running() const { return running_; }
    bool busy() const { return loading_ || !ready_ || running_; }
    bool converged() const { return stop_reason_ != StopReason::NotStopped; }
    StopReason stop_reason() const { return stop_reason_; }

    // ---- what is shown
    const std::vector<HistoryEntry>& history() const { return history_; }
    // Centroid c is drawn in palette colour colour_slots()[c] (empty: colour c). A
    // centroid removed by hand takes its colour with it and one added takes the first
    // free colour, so the other markers keep theirs (they were recoloured: issue 36).
    const std::vector<std::size_t>& colour_slots() const { return colour_slots_; }
    int latest_iteration() const { return static_cast<int>(history_.size()) - 1; }
    int displayed_iteration() const { return displayed_; }
    // Update for iteration 0 and whenever whole steps are shown.
    Phase displayed_phase() const { return displayed_phase_; }
    // Show a kept iteration (and half-step); labels not kept are recomputed (asynchronously).
    void show_position(int iteration, Phase phase) { show(iteration, phase); }
    const Matrix<double>& displayed_centroids() const;
    LabelsPtr displayed_labels() const;              // null: unassigned (iteration 0) or not yet known
    PointStatusPtr displayed_point_status() const;   // null unless known for the displayed iteration
    std::vector<IterationStats> stats_history() const;  // entries 1..latest
    // Labels of the latest iteration, if any.
    LabelsPtr latest_labels() const;

signals:
    void datasetChanged();
    void loadStarted(QString what);
    void loadProgress(qint64 done_bytes, qint64 total_bytes);
    void loadFailed(QString message);
    void setupChanged();       // new initial centroids / solver (iteration 0)
    void historyChanged();     // entries appended or cleared
    void frameChanged();       // displayed iteration, its centroids or labels changed
    void runningChanged(bool running);
    void errorOccurred(QString message);
    void statusMessage(QString message);
    void deviceLabelsReady(const void* device_labels, const void* device_point_status, quint64 n);

private:
    void request_setup(const Matrix<double>& given);
    void on_dataset_ready(const DatasetBundle& bundle, quint64 epoch);
    void on_setup_done(const SetupResult& result);
    void on_stepped(const StepResult& result);
    void trim_label_memory();
    void ensure_displayed_labels();
    void show(int iteration, Phase phase = Phase::Update);
    // `colours`: each centroid's colour (colour_slots()), kept through a hand edit.
    void request_initial_centroids(const Matrix<double>& centroids, std::vector<std::size_t> colours = {});

    QThread thread_;
    SolverWorker* worker_ = nullptr;  // lives in thread_, deleted when it finishes

    DatasetBundle bundle_;
    ProjectionMode projection_mode_ = ProjectionMode::Pca;
    RunSetup setup_;
    Matrix<double> initial_centroids_;
    QString description_;
    std::vector<HistoryEntry> history_;
    int displayed_ = 0;
    StopReason stop_reason_ = StopReason::NotStopped;

    std::uint64_t data_epoch_ = 0;   // identifies the newest load request
    // A replay's recorded steps, run once the set-up of that load (its data epoch) is done.
    int steps_after_open_ = 0;
    std::vector<std::size_t> colour_slots_;
    std::uint64_t steps_after_open_epoch_ = 0;
    std::uint64_t run_epoch_ = 0;    // identifies the newest solver set-up / reset
    bool loading_ = false;
    bool ready_ = false;
    bool running_ = false;
    bool relabel_pending_ = false;
    bool half_steps_ = false;
    Phase displayed_phase_ = Phase::Update;
    bool assign_phase_next_ = false;  // the step just requested shows its assignment first
    bool k_from_data_ = true;
    // Where the data came from (replay files keep a generator's spec rather than its points).
    QString data_source_;
    std::string generator_spec_;
    std::uint64_t generator_seed_ = 0;
    std::string pending_source_spec_;       // of the load in flight
    std::uint64_t pending_source_seed_ = 0;
    QString pending_source_;
    Matrix<double> pending_initial_;        // a replay's initial centroids, used once its data arrives
    int delay_ms_ = 0;
    GeoOptions geo_;
};

}  // namespace kms::ui
