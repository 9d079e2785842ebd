#include "studio_options.hpp"

#include <charconv>
#include <filesystem>
#include <map>
#include <set>

#include "kms/error.hpp"

namespace kms::ui {

namespace {

const std::set<std::string> kValueOptions = {
    "--input", "--generate", "--k", "--solver", "--backend", "--precision", "--init", "--seed", "--max-iter",
    "--tol", "--threads", "--block-size", "--empty", "--compare", "--steps", "--screenshot", "--colour",
    "--point-size", "--projection", "--size"};
const std::set<std::string> kFlags = {"--help", "--voronoi", "--no-trails"};

template <typename Number>
Number number(const std::string& option, const std::string& text) {
    Number value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size())
        throw Error("option " + option + ": '" + text + "' is not a valid number");
    return value;
}

template <typename T>
T parsed(std::optional<T> value, const std::string& option, const std::string& text, const char* allowed) {
    if (!value) throw Error("option " + option + ": unknown value '" + text + "' (expected " + allowed + ")");
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
        throw Error("option --compare: '" + spec + "' is not SOLVER[/BACKEND[/PRECISION]]");
    config.algorithm = parsed(parse_algorithm(parts[0]), "--compare", parts[0], "lloyd, elkan or hamerly");
    if (parts.size() > 1)
        config.backend = parsed(parse_backend(parts[1]), "--compare", parts[1], "seq, omp, cuda-global or cuda-shared");
    if (parts.size() > 2) config.precision = parsed(parse_precision(parts[2]), "--compare", parts[2], "f32 or f64");
    return config;
}

StudioOptions parse_studio_options(const std::vector<std::string>& args) {
    std::map<std::string, std::string> values;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string name = args[i], value;
        bool has_value = false;
        if (name.rfind("--", 0) != 0) throw Error("unexpected argument '" + name + "'");
        if (const auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
            has_value = true;
        }
        if (kFlags.count(name)) {
            if (has_value) throw Error("option " + name + " takes no value");
            values[name] = "1";
            continue;
        }
        if (!kValueOptions.count(name)) throw Error("unknown option " + name + " (see --help)");
        if (!has_value) {
            if (i + 1 >= args.size()) throw Error("option " + name + " needs a value");
            value = args[++i];
        }
        if (values.count(name)) throw Error("option " + name + " given twice");
        values[name] = value;
    }
    auto get = [&](const std::string& name, const std::string& fallback = {}) {
        const auto it = values.find(name);
        return it == values.end() ? fallback : it->second;
    };
    auto has = [&](const std::string& name) { return values.count(name) != 0; };

    StudioOptions options;
    options.help = has("--help");
    if (has("--input") && has("--generate")) throw Error("give either --input or --generate, not both");
    options.input = get("--input");
    options.generate = get("--generate");
    options.seed = has("--seed") ? number<std::uint64_t>("--seed", get("--seed")) : 0;

    SolverConfig& config = options.setup.config;
    config.algorithm = parsed(parse_algorithm(get("--solver", "lloyd")), "--solver", get("--solver"),
                              "lloyd, elkan or hamerly");
    config.backend = parsed(parse_backend(get("--backend", "omp")), "--backend", get("--backend"),
                            "seq, omp, cuda-global or cuda-shared");
    config.precision = parsed(parse_precision(get("--precision", "f64")), "--precision", get("--precision"),
                              "f32 or f64");
    config.empty_policy = parsed(parse_empty_policy(get("--empty", "keep")), "--empty", get("--empty"),
                                 "keep or farthest");
    if (has("--max-iter")) config.max_iterations = number<int>("--max-iter", get("--max-iter"));
    if (has("--tol")) config.tol = number<double>("--tol", get("--tol"));
    if (has("--threads")) config.threads = number<int>("--threads", get("--threads"));
    if (has("--block-size")) config.cuda_block_size = number<int>("--block-size", get("--block-size"));
    if (config.max_iterations < 1) throw Error("option --max-iter must be at least 1");
    if (!(config.tol >= 0.0)) throw Error("option --tol must be >= 0");
    if (config.threads < 0) throw Error("option --threads must be >= 0");
    if (config.cuda_block_size != 0 &&
        (config.cuda_block_size < 32 || config.cuda_block_size > 1024 || config.cuda_block_size % 32 != 0))
        throw Error("option --block-size must be 0 or a multiple of 32 between 32 and 1024");

    options.k_given = has("--k");
    if (options.k_given) {
        const long long k = number<long long>("--k", get("--k"));
        if (k < 1) throw Error("option --k must be at least 1");
        options.setup.k = static_cast<std::size_t>(k);
    }
    options.setup.init.seed = options.seed;
    const std::string init = get("--init", "kmeans++");
    if (const auto method = parse_init_method(init); method && *method != InitMethod::File) {
        options.setup.init.method = *method;
    } else if (std::filesystem::exists(init)) {
        options.setup.init.method = InitMethod::File;
        options.setup.init.path = init;
    } else {
        throw Error("option --init: '" + init + "' is neither random, kmeans++, greedy-kmeans++, maximin nor an existing file");
    }

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
        if (options.compare.size() < 2 || options.compare.size() > 4)
            throw Error("option --compare needs 2 to 4 solvers, e.g. lloyd/seq,hamerly/omp (got " +
                        std::to_string(options.compare.size()) + ")");
    }
    if (has("--steps")) {
        const std::string steps = get("--steps");
        options.steps = steps == "converge" ? -1 : number<int>("--steps", steps);
        if (options.steps < -1) throw Error("option --steps must be >= 0 or 'converge'");
    }
    options.screenshot = get("--screenshot");
    const std::string colour = get("--colour", "labels");
    if (colour == "labels") options.colour = ColourMode::Labels;
    else if (colour == "bounds") options.colour = ColourMode::Bounds;
    else if (colour == "difference") options.colour = ColourMode::Difference;
    else throw Error("option --colour: unknown value '" + colour + "' (expected labels, bounds or difference)");
    options.voronoi = has("--voronoi");
    options.trails = !has("--no-trails");
    if (has("--point-size")) {
        options.point_size = number<double>("--point-size", get("--point-size"));
        if (!(options.point_size >= 1.0 && options.point_size <= 64.0))
            throw Error("option --point-size must be between 1 and 64");
    }
    const std::string projection = get("--projection", "pca");
    if (projection == "pca") options.projection = ProjectionMode::Pca;
    else if (projection == "first2") options.projection = ProjectionMode::FirstTwoDimensions;
    else throw Error("option --projection: unknown value '" + projection + "' (expected pca or first2)");
    if (has("--size")) {
        const std::string size = get("--size");
        const std::size_t x = size.find('x');
        if (x == std::string::npos) throw Error("option --size: '" + size + "' is not WIDTHxHEIGHT");
        options.width = number<int>("--size", size.substr(0, x));
        options.height = number<int>("--size", size.substr(x + 1));
        if (options.width < 320 || options.height < 240 || options.width > 8192 || options.height > 8192)
            throw Error("option --size: " + size + " is outside 320x240 .. 8192x8192");
    }
    return options;
}

std::string studio_usage() {
    return R"(kmeans-studio: step k-means solvers and watch them work.

Data (default: the bundled example):
  --input PATH          a data file (CSV/TSV/whitespace, benchmark .txt, .npy)
  --generate SPEC       a generated set, e.g. blobs:n=2000,k=5 (kmeans-cli generate --help lists them)
  --seed S              seed of the generator and of the initialisation (default 0)
Solver (as kmeans-cli run):
  --k K  --solver lloyd|elkan|hamerly  --backend seq|omp|cuda-global|cuda-shared
  --precision f64|f32  --init kmeans++|greedy-kmeans++|random|maximin|FILE
  --max-iter N  --tol T  --threads N  --block-size N  --empty keep|farthest
Scripted runs:
  --compare S/B[/P],... 2 to 4 solvers side by side on the same data and initial centroids
  --steps N|converge    iterations to run after start
  --screenshot PATH     after the steps, save the window as PNG and exit (errors: stderr, exit 1)
View:
  --colour labels|bounds|difference  --voronoi  --no-trails  --point-size PX
  --projection pca|first2  --size WxH
)";
}

}  // namespace kms::ui
