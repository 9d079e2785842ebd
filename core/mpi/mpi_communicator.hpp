#pragma once
// kms::Communicator over MPI (OpenMPI from Debian): the ranks of MPI_COMM_WORLD.
// Built as kms_mpi when CMake finds MPI (KMS_HAVE_MPI).
#include <memory>

#include "kms/communicator.hpp"

namespace kms {

// Initialises MPI (MPI_THREAD_FUNNELED: only the thread that made it calls MPI;
// the solvers call their collectives from the OpenMP master thread) and finalises
// it when the last reference goes.
std::shared_ptr<Communicator> mpi_world();

}  // namespace kms
