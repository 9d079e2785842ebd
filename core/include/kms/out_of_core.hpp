#pragma once
// Whether a file is clustered out of core (read a block at a time on every pass,
// fit() of a RowSource) or loaded, and with what buffers: one plan for the CLI's
// run (--out-of-core, --memory-limit; docs/scale-out.md) and the Python package's
// KMeans.fit of a path (out_of_core=, memory_limit=). Its messages use the CLI's
// option names (the Python package words them as its parameters).
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include "kms/fit.hpp"
#include "kms/geo.hpp"
#include "kms/options.hpp"
#include "kms/row_source.hpp"

namespace kms {

struct OutOfCorePlan {
    std::shared_ptr<const RowSource> source;  // the file: binary by position, text by its index (--geo: rows projected)
    std::optional<GeoRows> geo;               // --geo: the projection, chosen from one pass over the file
    std::uint64_t memory_limit = 0;           // bytes this process may use (given, or what is available)
    std::uint64_t state_bytes = 0;            // what stays in memory per row (labels, seeding), all rows
    std::size_t buffer_bytes = 0;             // the solver's two blocks (and the seeding's one) together
    bool automatic = false;                   // chosen because the points did not fit (--out-of-core auto)
    std::optional<SolverChoice> solver_choice;  // --solver auto: what runs out of core (its bounds fit), and why
    std::string describe() const;             // one line for the report
};

enum class OutOfCoreWhen { Auto, On, Off };

struct OutOfCoreRequest {
    std::string path;                 // the data file (binary matrix or delimited text)
    OutOfCoreWhen when = OutOfCoreWhen::Auto;
    std::uint64_t memory_limit = 0;   // bytes; 0: what is available (shared by the machine's ranks)
    bool weighted = false;            // sample weights come beside the file (their bytes count)
    GeoOptions geo;                   // --geo: the rows are latitude, longitude (a .npy only)
    std::stop_token cancel;           // a text file's pass stops when asked
};

// nullopt: load the file as always (Off; Auto with points that fit in the memory limit,
// or a file that only loading reads: not a regular file, a --geo text table). A text
// file is counted by a first pass (its index) unless even the most rows its bytes can
// hold fit; Auto then loads it if they fit after all. Throws kms::UsageError for On
// with a file it cannot read a block at a time, and when the per-row state alone does
// not fit in the limit (a bounded solver's bounds, which stay in memory, included: then
// it names the solvers whose bounds fit); kms::InputError for a bad file's header. Under
// fit.ranks each process plans for its block, and every rank goes out of core when one
// must (collective). --geo with a .npy: the file's pass of statistics is made here
// (open_geo_rows). With a plan, fit(plan.source, plan.buffer_bytes, ...) runs with
// plan.solver_choice's algorithm where --solver auto was given.
std::optional<OutOfCorePlan> plan_out_of_core(const OutOfCoreRequest& request, const FitOptions& fit);

// The options --out-of-core (auto | on | off) and --memory-limit (e.g. 512M): the CLI's
// run and the Python binding's fit of a path parse them with this table.
OptionTable out_of_core_option_table();
// Their request (kms::UsageError for a bad value); the path, weights, --geo and the
// cancellation are the caller's to fill in.
OutOfCoreRequest out_of_core_request_from(const ParsedOptions& options);

}  // namespace kms
