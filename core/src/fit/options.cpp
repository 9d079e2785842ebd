// The option table (kms/options.hpp).
#include "kms/options.hpp"

#include "kms/algorithms.hpp"
#include "kms/backends.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

namespace kms {

namespace {

// Stands for the registered solvers' names in a help text.
constexpr std::string_view kSolverNames = "{solvers}";

constexpr OptionSpec kFitOptions[] = {
    {"--k", "K", "", "number of clusters (1 <= K <= n)"},
    {"--solver", "NAME", "lloyd", "{solvers} (all exact: Lloyd's result)\n"
                                  "| auto (CPU: chosen from n, d, k; CUDA: lloyd, hamerly and exponion\n"
                                  "raced 6 steps each on the data, the fastest kept; docs/solvers.md)"},
    {"--backend", "NAME", "omp", "seq | omp | cuda (also cuda-global, cuda-shared: cuda with --variant)"},
    {"--variant", "V", "auto", "CUDA kernels: global | shared | auto (shared for Lloyd with k >= 64\n"
                               "or d >= 16, for Hamerly with k > 32, and for Yinyang and\n"
                               "Exponion; else global: the faster on the H100 and H200)"},
    {"--gemm-filter", "on|off", "on", "Lloyd: approximate distances by a GEMM, keep the labels its error\n"
                                      "bound proves, search the rest exactly (labels unchanged). CPU: d >= 16,\n"
                                      "k >= 32, an FMA GEMM in the run's precision; CUDA: shared variant,\n"
                                      "d >= 16, k >= 64, TF32 tensor cores, used while it assigns faster than\n"
                                      "the exact kernel, timed on the run"},
    {"--int8-filter", "on|off", "", "the older spelling of --gemm-filter"},
    {"--precision", "P", "f64", "f32 | f64"},
    {"--init", "METHOD|PATH", "kmeans++", "random | kmeans++ | greedy-kmeans++ | maximin | kmeans-parallel\n"
                                          "(k-means||: --oversampling, --init-rounds), or a centroid file"},
    {"--init-bounds", "auto|on|off", "auto", "k-means++, greedy-kmeans++ (kmeans-parallel's reduction): skip the\n"
                                             "distances a tree of boxes (GPU: Raff's bounds) rules out; the same\n"
                                             "centroids, bit for bit; auto: on from k = 200 at d <= 4 (GPU: k = 500\n"
                                             "above d = 4), where measured faster"},
    {"--oversampling", "L", "2", "kmeans-parallel: each round samples L x k candidates expected"},
    {"--init-rounds", "R", "5", "kmeans-parallel: sampling rounds"},
    {"--seed", "S", "0", "seed of the generator and of the initialisation"},
    {"--n-init", "R", "1", "restarts with seeds S .. S+R-1; the lowest final inertia is kept"},
    {"--max-iter", "N", "300", "iteration limit"},
    {"--tol", "X", "1e-4", "stop when the summed squared centroid shift <= X * mean feature\n"
                           "variance, as scikit-learn (0 = until labels settle)"},
    {"--threads", "T", "0", "OpenMP threads (0 = all cores; at most 4 x the hardware threads)"},
    {"--bind", "PLACE", "none", "OpenMP thread placement: none (the OS decides) | compact (fill each\n"
                                "core's hardware threads first) | spread (one thread per physical core first)"},
    {"--packages", "P", "0", "update: packages of the two-step sum, for every back end (0 = automatic:\n"
                             "up to 256 of >= 1024 points, past 2^25 points one per 2^17); the study\n"
                             "of the float error, see docs/benchmarks.md"},
    {"--block-size", "B", "0", "CUDA threads per block: a multiple of 32 up to 1024, 0 = automatic"},
    {"--device", "N", "0", "CUDA device"},
    {"--stream-chunk", "ROWS", "0", "CUDA (Lloyd, and the bounded solvers but Elkan): stream the points from\n"
                                    "page-locked host memory in chunks\n"
                                    "of ROWS (rounded up to whole update packages), copies overlapping the\n"
                                    "assignment; 0 = only when they do not fit on the device (docs/scale-out.md)"},
    {"--devices", "LIST", "", "CUDA: several devices in one process: all | N,M,... (rows split over\n"
                              "them, summed in the CPU's package tree: bitwise the centroids of --devices N\n"
                              "alone and of the CPU; docs/scale-out.md)"},
    {"--empty", "POLICY", "keep", "keep | farthest: what an empty cluster does"},
};

constexpr OptionSpec kDataOptions[] = {
    {"--input", "PATH", "", "data: delimited text (CSV/TSV/spaces), benchmark-set text, NumPy .npy, or by extension\n"
                              ".fvecs .bvecs .ivecs .fbin .u8bin .i8bin .ibin (the ANN benchmarks' binary formats)"},
    {"--generate", "SPEC", "", "generated data, e.g. blobs:n=100000,k=5,d=2 (see 'kmeans-cli generate --help')"},
};

constexpr OptionSpec kGeoOptions[] = {
    {"--geo", "", "", "the data are latitude, longitude in degrees (a table with a header, a .npy, or\n"
                      "the geo-cities generator): clustered in km, centroids reported in degrees (docs/geographic.md)"},
    {"--lat", "COLUMN", "", "latitude column: header name or 1-based number (default: lat or latitude; a .npy:\n"
                            "its 2 columns, or --lat and --lon by number); implies --geo"},
    {"--lon", "COLUMN", "", "longitude column (default: lon, lng, long or longitude); implies --geo"},
    {"--geo-projection", "P", "auto", "auto | equirectangular | sphere (3-D unit vectors x R): the frame clustered in"},
};

const OptionSpec* find_spec(const std::vector<OptionTable>& tables, std::string_view name) {
    for (OptionTable table : tables)
        for (const OptionSpec& spec : table)
            if (spec.name == name) return &spec;
    return nullptr;
}

template <typename T>
T parsed_or_usage(std::optional<T> value, std::string_view option, const std::string& text, std::string_view allowed) {
    if (!value)
        throw UsageError("option " + std::string(option) + ": unknown value '" + text + "' (expected " +
                         std::string(allowed) + ")");
    return *value;
}

// A command may offer only some fit options (predict): the others take the table's defaults.
struct WithDefaults {
    const ParsedOptions& parsed;
    bool has(std::string_view name) const { return parsed.has(name); }
    std::string get(std::string_view name) const {
        return parsed.has(name) ? parsed.get(name) : std::string(find_spec({kFitOptions}, name)->fallback);
    }
    template <typename Number>
    Number number(std::string_view name) const {
        return parse_number<Number>(name, get(name));
    }
};

// --devices: "all" (every device the back end sees) or a comma-separated list.
std::vector<int> parse_devices(const std::string& text, const SolverConfig& config) {
    const BackendEntry* entry = find_backend(config.backend);
    if (!entry || !entry->device_count)
        throw UsageError("option --devices needs a back end with devices (--backend cuda), not --backend " +
                         config.backend_name());
    std::vector<int> devices;
    if (text == "all") {
        const int count = entry->device_count();
        if (count < 1) throw UsageError("option --devices all: no " + entry->label + " device is visible");
        for (int device = 0; device < count; ++device) devices.push_back(device);
        return devices;
    }
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        const int device = parse_number<int>("--devices", item);
        if (device < 0) throw UsageError("option --devices: device numbers are 0 or more, not " + item);
        devices.push_back(device);
        start = comma + 1;
    }
    if (devices.size() > 1024) throw UsageError("option --devices: at most 1024 devices");
    return devices;
}

}  // namespace

OptionTable fit_option_table() { return kFitOptions; }
OptionTable data_option_table() { return kDataOptions; }
OptionTable geo_option_table() { return kGeoOptions; }

GeoOptions geo_options_from(const ParsedOptions& parsed) {
    GeoOptions geo;
    geo.enabled = parsed.has("--geo") || parsed.has("--lat") || parsed.has("--lon");
    geo.columns.lat = parsed.get("--lat");
    geo.columns.lon = parsed.get("--lon");
    const std::string frame = parsed.get("--geo-projection", "auto");
    if (frame == "equirectangular") geo.frame = GeoFrame::Equirectangular;
    else if (frame == "sphere") geo.frame = GeoFrame::Sphere;
    else if (frame != "auto")
        throw UsageError("option --geo-projection: unknown value '" + frame + "' (expected auto, equirectangular or sphere)");
    if (parsed.has("--geo-projection") && !geo.enabled) throw UsageError("option --geo-projection needs --geo");
    return geo;
}

ParsedOptions::ParsedOptions(const std::vector<std::string>& args, std::initializer_list<OptionTable> tables)
    : tables_(tables) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string name = args[i], value;
        bool has_value = false;
        if (name.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + name + "'");
        if (const auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
            has_value = true;
        }
        const OptionSpec* spec = find_spec(tables_, name);
        if (!spec) throw UsageError("unknown option " + name);
        if (values_.count(name)) throw UsageError("option " + name + " given twice");
        if (spec->value.empty()) {
            if (has_value) throw UsageError("option " + name + " takes no value");
            values_[name] = "1";
            continue;
        }
        if (!has_value) {
            if (i + 1 >= args.size()) throw UsageError("option " + name + " needs a value");
            // "sweep --scores --report json" took --report as --scores' value and then
            // complained about 'json' (issue 39): a value that starts with -- is an option.
            if (args[i + 1].rfind("--", 0) == 0)
                throw UsageError("option " + name + " needs a value, but the next argument is " +
                                 (find_spec(tables_, args[i + 1].substr(0, args[i + 1].find('='))) ? "the option "
                                                                                                     : "") +
                                 args[i + 1] + " (" + name + "=VALUE takes a value that starts with --)");
            value = args[++i];
        }
        values_[name] = value;
    }
}

std::string ParsedOptions::get(std::string_view name, const std::string& fallback) const {
    if (const auto it = values_.find(std::string(name)); it != values_.end()) return it->second;
    const OptionSpec* spec = find_spec(tables_, name);
    return spec && !spec->fallback.empty() ? std::string(spec->fallback) : fallback;
}

FitOptions fit_options_from(const ParsedOptions& parsed, bool k_required, bool read_k) {
    const WithDefaults options{parsed};
    FitOptions fit;
    SolverConfig& config = fit.solver;
    config.algorithm = parsed_or_usage(parse_algorithm(options.get("--solver")), "--solver", options.get("--solver"),
                                       algorithm_names(", ") + " or auto");
    const BackendSpec backend = parsed_or_usage(parse_backend(options.get("--backend")), "--backend",
                                                options.get("--backend"), "seq, omp, cuda, cuda-global or cuda-shared");
    config.backend = backend.backend;
    config.variant = backend.variant;
    if (options.has("--variant")) {
        if (backend.variant != KernelVariant::Auto)
            throw UsageError("give the CUDA variant once: --backend " + options.get("--backend") + " or --variant");
        config.variant = parsed_or_usage(parse_kernel_variant(options.get("--variant")), "--variant",
                                         options.get("--variant"), "auto, global or shared");
    }
    if (options.has("--gemm-filter") && options.has("--int8-filter"))
        throw UsageError("give --gemm-filter once (--int8-filter is its older spelling)");
    const std::string filter_option = options.has("--int8-filter") ? "--int8-filter" : "--gemm-filter";
    const std::string filter = options.get(filter_option);
    if (filter != "on" && filter != "off")
        throw UsageError("option " + filter_option + ": unknown value '" + filter + "' (expected on or off)");
    config.gemm_filter = filter == "on";
    config.precision = parsed_or_usage(parse_precision(options.get("--precision")), "--precision",
                                       options.get("--precision"), "f32 or f64");
    config.empty_policy = parsed_or_usage(parse_empty_policy(options.get("--empty")), "--empty",
                                          options.get("--empty"), "keep or farthest");
    config.max_iterations = options.number<int>("--max-iter");
    config.tol = options.number<double>("--tol");
    config.threads = options.number<int>("--threads");
    config.binding = parsed_or_usage(parse_thread_binding(options.get("--bind")), "--bind", options.get("--bind"),
                                     "none, compact or spread");
    config.cuda_block_size = options.number<int>("--block-size");
    config.packages = options.number<int>("--packages");
    config.cuda_device = options.number<int>("--device");
    config.stream_chunk = options.number<long long>("--stream-chunk");

    if (options.has("--devices")) {
        if (options.has("--device")) throw UsageError("give --device N or --devices LIST, not both");
        fit.devices = parse_devices(options.get("--devices"), config);
    }

    if (!read_k) {
        // k is set by the caller
    } else if (options.has("--k")) {
        const long long k = options.number<long long>("--k");
        if (k < 1) throw UsageError("--k must be at least 1");
        fit.k = static_cast<std::size_t>(k);
    } else if (k_required) {
        throw UsageError("--k K is required");
    }
    fit.n_init = options.number<int>("--n-init");
    fit.init.seed = options.number<std::uint64_t>("--seed");
    const std::string init = options.get("--init");
    if (const auto method = parse_init_method(init); method && *method != InitMethod::File) {
        fit.init.method = *method;
    } else if (std::error_code error; std::filesystem::exists(init, error)) {  // never throws (fuzz: long names)
        fit.init.method = InitMethod::File;
        fit.init.path = init;
    } else {
        throw UsageError("--init: '" + init + "' is neither random, kmeans++, greedy-kmeans++, maximin, "
                         "kmeans-parallel nor an existing file");
    }
    fit.init.bounds = parsed_or_usage(parse_seeding_bounds(options.get("--init-bounds")), "--init-bounds",
                                      options.get("--init-bounds"), "auto, on or off");
    fit.init.oversampling = options.number<double>("--oversampling");
    if (!(fit.init.oversampling > 0.0) || !std::isfinite(fit.init.oversampling))
        throw UsageError("--oversampling must be a positive number");
    fit.init.parallel_rounds = options.number<int>("--init-rounds");
    if (fit.init.parallel_rounds < 1) throw UsageError("--init-rounds must be at least 1");
    if (fit.k > 0) fit.validate();
    else config.validate();
    return fit;
}

std::string options_help(OptionTable table) {
    std::size_t width = 0;
    for (const OptionSpec& spec : table) width = std::max(width, spec.name.size() + 1 + spec.value.size());
    width = std::max<std::size_t>(width + 2, 22);
    std::string text;
    for (const OptionSpec& spec : table) {
        std::string head = "  " + std::string(spec.name);
        if (!spec.value.empty()) head += " " + std::string(spec.value);
        head.resize(std::max(head.size() + 1, width + 2), ' ');
        std::string help(spec.help);
        // The registered solvers' names (kms/algorithms.hpp), never a list kept here.
        if (const std::size_t at = help.find(kSolverNames); at != std::string::npos)
            help.replace(at, kSolverNames.size(), algorithm_names(" | "));
        if (!spec.fallback.empty()) help += " (default " + std::string(spec.fallback) + ")";
        // Continuation lines line up under the first.
        std::string indented;
        for (char c : help) {
            indented += c;
            if (c == '\n') indented += std::string(width + 2, ' ');
        }
        text += head + indented + "\n";
    }
    return text;
}

}  // namespace kms
