#pragma once
// kms::Communicator over MPI (OpenMPI from Debian): the ranks of MPI_COMM_WORLD.
// Built as kms_mpi when CMake finds MPI (KMS_HAVE_MPI).
#include <memory>

#include "kms/communicator.hpp"

namespace kms {

// The process's one communicator: initialises MPI on the first call
// (MPI_THREAD_FUNNELED: only the thread that made it calls MPI; the solvers call
// their collectives from the OpenMP master thread) and finalises it at exit.
std::shared_ptr<Communicator> mpi_world();

}  // namespace kms
