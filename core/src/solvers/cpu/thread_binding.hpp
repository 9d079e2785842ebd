#pragma once
// --bind for the OpenMP back end. libgomp reads OMP_PLACES / OMP_PROC_BIND once,
// when the process starts, so a placement chosen per run (the CLI's option, the
// studio's setting between two runs) cannot go through them: the solver pins its
// OpenMP team's threads itself, the way OpenMP's "close" (compact) and "spread"
// policies place them over one place per hardware thread.
#include <vector>

#include "kms/solver.hpp"

namespace kms::cpu {

// Logical CPU ids in the order threads 0, 1, ... take them (wrapping around when
// there are more threads than CPUs); empty for ThreadBinding::None.
std::vector<int> binding_order(ThreadBinding binding);

// Places the threads of the calling thread's OpenMP team of `threads` threads.
// Cheap when nothing changed since the last call on this thread; None undoes an
// earlier binding (and leaves alone threads this process never pinned, e.g.
// bound through OMP_PROC_BIND). Throws kms::Error when the OS refuses.
void apply_thread_binding(ThreadBinding binding, int threads);

}  // namespace kms::cpu
