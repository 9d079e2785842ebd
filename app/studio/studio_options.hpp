#pragma once
// Command-line options of kmeans-studio: the data, solver and init options of
// `kmeans-cli run`, plus the scripted-run options (--steps, --screenshot,
// --compare) and a few view options for slides and the docs' screenshots.
#include <QString>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kms/sweep.hpp"
#include "run/run_types.hpp"
#include "view/point_cloud_view.hpp"

namespace kms::ui {

struct StudioOptions {
    std::string input;              // --input PATH
    std::string generate;           // --generate SPEC
    std::uint64_t seed = 0;         // --seed (data generator and init)
    bool k_given = false;
    RunSetup setup;                 // --k --solver --backend --precision --init --max-iter --tol --threads --block-size --empty
    std::vector<SolverConfig> compare;  // --compare lloyd/seq,elkan/omp/f32,...
    int steps = 0;                  // --steps N: iterations to run after start (-1: to convergence)
    bool steps_given = false;       // else a replay runs to its recorded steps (or convergence)
    std::string screenshot;         // --screenshot PATH: save the window as PNG after the steps, then exit
    ColourMode colour = ColourMode::Labels;  // --colour labels|bounds|difference
    bool voronoi = false;           // --voronoi
    bool trails = true;             // --no-trails
    double point_size = 0;          // --point-size PX (0: the view's default)
    ProjectionMode projection = ProjectionMode::Pca;  // --projection pca|first2
    int width = 0, height = 0;      // --size WxH of the window (and of the animation's frames)
    std::string replay;             // --replay PATH: data, options and initial centroids from a .kmsrun file
    std::string save_run;           // --save-run PATH: after the steps, write the run as a .kmsrun file
    std::string export_animation;   // --export-animation PATH.gif|.mp4: after the steps, the run as GIF or MP4
    bool presentation = false;      // --presentation: docks hidden, big points, markers and text
    bool half_steps = false;
    bool lesson = false;            // --lesson: start in lesson mode        // --half-steps: assignment and update as separate steps (and frames)
    std::optional<KRange> sweep;    // --sweep FIRST:LAST[:STEP]: after the steps, the elbow chart of this range
    bool sweep_hierarchy = false;   // --sweep-hierarchy
    GeoOptions geo;                 // --geo --lat --lon --geo-projection
    // --spectral K|auto: after the steps, run the spectral pipeline (ui/spectral) with k_c = K
    // (0 = auto) and show it; --spectral-view which stage the screenshot shows.
    std::optional<std::size_t> spectral_clusters;
    bool spectral_show_representatives = false;  // --spectral-view representatives|clusters
    bool help = false;

    // Exits after writing its outputs (errors: stderr, exit 1).
    bool scripted() const { return !screenshot.empty() || !save_run.empty() || !export_animation.empty(); }
    bool has_data() const { return !input.empty() || !generate.empty() || !replay.empty(); }
};

// Throws kms::Error naming the option for a bad command line.
StudioOptions parse_studio_options(const std::vector<std::string>& args);
// One SOLVER[/BACKEND[/PRECISION]] item of --compare, over `base`.
SolverConfig parse_solver_spec(const std::string& spec, const SolverConfig& base);
std::string studio_usage();

}  // namespace kms::ui
