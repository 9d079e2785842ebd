#pragma once
// kms::Communicator over MPI (OpenMPI from Debian): the ranks of MPI_COMM_WORLD.
// Built as kms_mpi when CMake finds MPI (KMS_HAVE_MPI).
#include <memory>

#include "kms/communicator.hpp"

namespace kms {

// The process's one communicator: initialises MPI on the first call and finalises it
// at exit. It asks for MPI_THREAD_SERIALIZED (one thread at a time, not always the
// same: a device group's first device thread, --devices under ranks) and needs at
// least MPI_THREAD_FUNNELED (the solvers call their collectives from the OpenMP master
// thread).
std::shared_ptr<Communicator> mpi_world();
// Whether the library gave MPI_THREAD_SERIALIZED (or more); after mpi_world().
bool mpi_world_serialized();

}  // namespace kms
