# Sourced after device_common.sh on a device machine with Open MPI (the lent CUDA
# image has Ubuntu's 4.1.6 and its mpirun): the pack carries Debian's libmpi (4.1.4,
# the same soname and ABI) for runs without a launcher; under the machine's mpirun the
# machine's own library must be the one loaded, so the carried MPI libraries are set aside.
if [ -z "${KMS_MPI_ENV_SET:-}" ]; then
  mkdir -p "$work/lib-mpi-carried"
  mv "$work"/lib/libmpi* "$work"/lib/libopen-* "$work"/lib/libhwloc* "$work"/lib/libevent* "$work/lib-mpi-carried/" 2>/dev/null
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive KMS_MPI_ENV_SET=1
  command -v mpirun > /dev/null || echo "device_mpi_env: no mpirun on this machine"
fi
