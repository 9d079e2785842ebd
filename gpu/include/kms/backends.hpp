#pragma once
// Every back end behind one factory: sequential and OpenMP (core/) and CUDA (gpu/).
#include <memory>
#include <string>

#include "kms/solver.hpp"

namespace kms {

struct BackendAvailability {
    bool available = false;
    std::string reason;   // why not, for error messages and greyed-out GUI entries
};

// Whether a back end can run here (CUDA: built with CUDA, a driver, a device).
BackendAvailability backend_availability(Backend backend);

// A solver for any back end. Throws kms::Error with the reason if the back end
// is unavailable (no CUDA build, no driver, no device).
std::unique_ptr<Solver> make_solver(const SolverConfig& config);

}  // namespace kms
