#include "studio/studio_options.hpp"

#include "kms/algorithms.hpp"
#include "kms/error.hpp"
#include "kms/io.hpp"
#include "kms/options.hpp"

namespace kms::ui {

namespace {

// The studio's own options; data and solver options come from the shared table.
constexpr OptionSpec kStudioOptions[] = {
    {"--compare", "S/B[/P],...", "", "2 to 7 solvers (every registered one) side by side on the same data and initial centroids"},
    {"--steps", "N|converge", "", "iterations to run after start (default 0; with --replay, as far as\n"
                                          "the saved run went, else to convergence)"},
    {"--screenshot", "PATH", "", "after the steps, save the window as PNG and exit (errors: stderr, exit 1)"},
    {"--colour", "MODE", "labels", "labels | bounds | difference | membership (each point joined to its centroid)"},
    {"--voronoi", "", "", "draw the Voronoi cells of the centroids"},
    {"--no-trails", "", "", "hide the centroids' paths"},
    {"--point-size", "PX", "", "point size in pixels, 1 to 64"},
    {"--projection", "MODE", "pca", "pca | first2: how d > 2 data is shown"},
    {"--size", "WxH", "", "window size (and the animation's frame size)"},
    {"--replay", "PATH", "", "a run file (.kmsrun): its data, options and initial centroids, exactly"},
    {"--save-run", "PATH", "", "after the steps, write the run as a .kmsrun replay file and exit"},
    {"--export-animation", "PATH", "", "after the steps, write the run as an animated GIF (PATH.gif) or an\n"
                                       "H.264 video (PATH.mp4), one frame per (half-)step, and exit"},
    {"--presentation", "", "", "presentation mode: docks hidden, bigger points, markers and text (F11)"},
    {"--sweep", "FIRST:LAST[:STEP]", "", "after the steps, open the elbow chart and sweep k over this range\n"
                                         "(with --screenshot: once the sweep is done)"},
    {"--sweep-hierarchy", "", "", "the --sweep as a hierarchy (each k seeded from the k above by merging)"},
    {"--half-steps", "", "", "step the assignment and the update separately (also the animation's frames)"},
    {"--lesson", "", "", "lesson mode (L): the class predicts each step's centroids, the step scores it"},
    {"--spectral", "K|auto", "", "after the steps, run the spectral pipeline (k-means representatives) with\n"
                                 "K clusters or auto, and show it (docs/spectral.md)"},
    {"--spectral-view", "STAGE", "clusters", "representatives | clusters: what --spectral shows"},
    {"--help", "", "", "this text"},
};

template <typename T>
T parsed(std::optional<T> value, const std::string& option, const std::string& text, const std::string& allowed) {
    if (!value) throw UsageError("option " + option + ": unknown value '" + text + "' (expected " + allowed + ")");
    return *value;
}

}  // namespace

SolverConfig parse_solver_spec(const std::string& spec, const SolverConfig& base) {
    SolverConfig config = base;
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t slash = spec.find('/', start);
        parts.push_back(spec.substr(start, slash - start));
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
    if (parts.empty() || parts.size() > 3 || parts[0].empty())
        throw UsageError("option --compare: '" + spec + "' is not SOLVER[/BACKEND[/PRECISION]]");
    config.algorithm = parsed(parse_algorithm(parts[0]), "--compare", parts[0], algorithm_names(", ") + " or auto");
    if (parts.size() > 1) {
        const BackendSpec backend =
            parsed(parse_backend(parts[1]), "--compare", parts[1], "seq, omp, cuda, cuda-global or cuda-shared");
        config.backend = backend.backend;
        config.variant = backend.variant;
    }
    if (parts.size() > 2) config.precision = parsed(parse_precision(parts[2]), "--compare", parts[2], "f32 or f64");
    config.validate();
    return config;
}

StudioOptions parse_studio_options(const std::vector<std::string>& args) {
    const ParsedOptions parsed_options(args, {data_option_table(), geo_option_table(), fit_option_table(), kStudioOptions});
    auto get = [&](const char* name) { return parsed_options.get(name); };
    auto has = [&](const char* name) { return parsed_options.has(name); };

    StudioOptions options;
    options.help = has("--help");
    if (has("--input") + has("--generate") + has("--replay") > 1)
        throw UsageError("give either --input, --generate or --replay, not two of them");
    options.replay = get("--replay");
    if (has("--replay")) {
        // The file holds every fit option: others on the command line would be silently ignored.
        for (const OptionTable table : {fit_option_table()})
            for (const OptionSpec& spec : table)
                if (has(std::string(spec.name).c_str()))
                    throw UsageError("option " + std::string(spec.name) + ": --replay takes every fit option from its file");
    }
    options.save_run = get("--save-run");
    options.export_animation = get("--export-animation");
    options.presentation = has("--presentation");
    options.half_steps = has("--half-steps");
    options.lesson = has("--lesson");
    if (has("--sweep")) options.sweep = parse_k_range(get("--sweep"), "--sweep");
    options.sweep_hierarchy = has("--sweep-hierarchy");
    options.geo = geo_options_from(parsed_options);
    if (options.sweep_hierarchy && !options.sweep) throw UsageError("option --sweep-hierarchy needs --sweep");
    if (has("--spectral")) {
        const std::string k = get("--spectral");
        const long long clusters = k == "auto" ? 0 : parse_number<long long>("--spectral", k);
        if (clusters < 0 || (clusters == 0 && k != "auto")) throw UsageError("--spectral must be K >= 1 or auto");
        options.spectral_clusters = static_cast<std::size_t>(clusters);
    }
    const std::string spectral_view = get("--spectral-view");
    if (spectral_view != "representatives" && spectral_view != "clusters")
        throw UsageError("option --spectral-view: unknown value '" + spectral_view + "' (expected representatives or clusters)");
    options.spectral_show_representatives = spectral_view == "representatives";

    options.input = get("--input");
    options.generate = get("--generate");

    const FitOptions fit = fit_options_from(parsed_options, false);
    options.k_given = fit.k > 0;
    options.setup.config = fit.solver;
    if (options.k_given) options.setup.k = fit.k;
    options.setup.init = fit.init;
    options.setup.n_init = fit.n_init;
    options.setup.devices = fit.devices;
    options.seed = fit.init.seed;
    const SolverConfig& config = options.setup.config;

    if (has("--compare")) {
        const std::string list = get("--compare");
        std::size_t start = 0;
        while (start <= list.size()) {
            const std::size_t comma = list.find(',', start);
            const std::string item = list.substr(start, comma - start);
            if (!item.empty()) options.compare.push_back(parse_solver_spec(item, config));
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        // Every registered solver may be compared at once (CompareMode::most_runs, in the studio's ui/).
        const std::size_t most = std::max<std::size_t>(4, registered_algorithms().size());
        if (options.compare.size() < 2 || options.compare.size() > most)
            throw UsageError("option --compare needs 2 to " + std::to_string(most) +
                             " solvers, e.g. lloyd/seq,hamerly/omp (got " +
                             std::to_string(options.compare.size()) + ")");
    }
    if (has("--steps")) {
        options.steps_given = true;
        const std::string steps = get("--steps");
        options.steps = steps == "converge" ? -1 : parse_number<int>("--steps", steps);
        if (options.steps < -1) throw UsageError("option --steps must be >= 0 or 'converge'");
    }
    options.screenshot = get("--screenshot");
    if (const QString animation = QString::fromStdString(options.export_animation);
        !animation.isEmpty() && !animation.endsWith(QStringLiteral(".gif"), Qt::CaseInsensitive) &&
        !animation.endsWith(QStringLiteral(".mp4"), Qt::CaseInsensitive))
        throw UsageError("option --export-animation: '" + options.export_animation + "' must end in .gif or .mp4");
    // Every output checked before any work, as the CLI does.
    for (const std::string* path : {&options.screenshot, &options.save_run, &options.export_animation})
        if (!path->empty()) check_output_path(*path);
    const std::string colour = get("--colour");
    if (colour == "labels") options.colour = ColourMode::Labels;
    else if (colour == "bounds") options.colour = ColourMode::Bounds;
    else if (colour == "difference") options.colour = ColourMode::Difference;
    else if (colour == "membership") options.colour = ColourMode::Membership;
    else throw UsageError("option --colour: unknown value '" + colour + "' (expected labels, bounds, difference or membership)");
    options.voronoi = has("--voronoi");
    options.trails = !has("--no-trails");
    if (has("--point-size")) {
        options.point_size = parse_number<double>("--point-size", get("--point-size"));
        if (!(options.point_size >= 1.0 && options.point_size <= 64.0))
            throw UsageError("option --point-size must be between 1 and 64");
    }
    const std::string projection = get("--projection");
    if (projection == "pca") options.projection = ProjectionMode::Pca;
    else if (projection == "first2") options.projection = ProjectionMode::FirstTwoDimensions;
    else throw UsageError("option --projection: unknown value '" + projection + "' (expected pca or first2)");
    if (has("--size")) {
        const std::string size = get("--size");
        const std::size_t x = size.find('x');
        if (x == std::string::npos) throw UsageError("option --size: '" + size + "' is not WIDTHxHEIGHT");
        options.width = parse_number<int>("--size", size.substr(0, x));
        options.height = parse_number<int>("--size", size.substr(x + 1));
        if (options.width < 320 || options.height < 240 || options.width > 8192 || options.height > 8192)
            throw UsageError("option --size: " + size + " is outside 320x240 .. 8192x8192");
    }
    return options;
}

std::string studio_usage() {
    return "kmeans-studio: step k-means solvers and watch them work.\n\n"
           "Data (default: the bundled example):\n" +
           options_help(data_option_table()) + options_help(geo_option_table()) + "Solver (as kmeans-cli run):\n" + options_help(fit_option_table()) +
           "Scripted runs and view:\n" + options_help(kStudioOptions);
}

}  // namespace kms::ui
