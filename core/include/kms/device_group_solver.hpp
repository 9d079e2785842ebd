#pragma once
// Several devices as one Solver: the rows split into blocks (partition_rows), one
// rank per listed device, each a thread of this process (ThreadGroup) owning a
// partitioned solver of `config` on its device; every call runs on all ranks
// together. So whatever steps a solver — the fit layer's loop, the studio's
// stepping, its bounds view — steps several devices alike, with the bits of one
// device's `--devices` run (the package tree fixes every sum's order).
#include <memory>
#include <vector>

#include "kms/solver.hpp"

namespace kms {

// `devices`: a device per rank (SolverConfig::cuda_device of that rank's solver); a
// device may be listed more than once (several blocks on it). Ranks past the data's
// grains get no rows and stay idle. The ranks start when the centroids are first
// set (the blocks depend on k); labels() and point_status() are the whole data
// set's, gathered in row order; the rest is rank 0's, which is every rank's.
std::unique_ptr<Solver> make_device_group_solver(const SolverConfig& config, std::vector<int> devices);

}  // namespace kms
