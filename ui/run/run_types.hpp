#pragma once
// Value types passed between the studio's worker thread and the GUI thread.
// Big arrays travel as shared_ptr<const ...> so a queued signal copies a pointer.
#include <QMetaType>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kms/dataset.hpp"
#include "kms/fit.hpp"
#include "kms/geo.hpp"
#include "kms/init.hpp"
#include "kms/matrix.hpp"
#include "kms/solver.hpp"
#include "kms/stats.hpp"
#include "view/labels.hpp"
#include "view/projection.hpp"

namespace kms::ui {

struct GeoView;  // ui/geo/geo_view.hpp

// A dataset ready for display: the data, its 2D projection and the projected points.
struct DatasetBundle {
    std::shared_ptr<const Dataset> dataset;
    Projection2D projection;
    std::shared_ptr<const std::vector<float>> projected;  // n × 2
    std::shared_ptr<const GeoView> geo;  // geographic data (latitude/longitude in km): its map; else null

    std::size_t n() const { return dataset ? dataset->n() : 0; }
    std::size_t d() const { return dataset ? dataset->d() : 0; }
};

// What a run needs besides the data.
struct RunSetup {
    SolverConfig config;
    std::size_t k = 5;
    InitOptions init;
    int n_init = 1;      // > 1: the fit layer runs every restart first; the studio then steps the best one
    // CUDA: a device group (rows split over these devices, stepped together; the
    // bits of one device's --devices run); empty: one device, config.cuda_device.
    std::vector<int> devices;
};

// A solver ready at iteration 0.
struct SetupResult {
    std::uint64_t epoch = 0;
    Matrix<double> initial_centroids;
    std::string description;  // SolverConfig::describe()
    std::vector<RestartResult> restarts;  // n_init > 1: every restart, to convergence
    int best_restart = 0;                 // the one whose initial centroids these are
    std::string seeding;                  // what the seeding cost (kms::describe_seeding); empty when given
};

// One iteration, as the worker reports it. labels / point_status may be null
// while running fast (only the latest labels are worth drawing); the final
// step of a run always carries them.
struct StepResult {
    std::uint64_t epoch = 0;
    IterationStats stats;
    Matrix<double> centroids;  // after this iteration's update
    LabelsPtr labels;
    PointStatusPtr point_status;
    StopReason stop_reason = StopReason::NotStopped;
    double handover_ms = 0.0;  // copying labels and status for the GUI thread
};

}  // namespace kms::ui

Q_DECLARE_METATYPE(kms::ui::DatasetBundle)
Q_DECLARE_METATYPE(kms::ui::SetupResult)
Q_DECLARE_METATYPE(kms::ui::StepResult)
Q_DECLARE_METATYPE(kms::ui::RunSetup)
