# MPI (issue 17): the CPU solvers over MPI ranks, bitwise one process's run, with
# 1, 2 and 3 ranks (oversubscribed on a 2-core machine). Built when CMake finds MPI
# (Debian: libopenmpi-dev, openmpi-bin).
if(TARGET kms_mpi)
  find_program(KMS_MPIEXEC NAMES mpiexec mpirun HINTS ${MPIEXEC_EXECUTABLE})
  add_executable(test_mpi_partition ${CMAKE_CURRENT_LIST_DIR}/../mpi/test_mpi_partition.cpp)
  target_link_libraries(test_mpi_partition PRIVATE kms_mpi kms_core kms_warnings)
  foreach(ranks 1 2 3)
    # --oversubscribe: more ranks than cores; root is allowed (CI containers run as
    # root); the shared-memory transport without single-copy (containers lack ptrace);
    # waiting ranks yield the core (more ranks than cores: spinning ones starve the others).
    add_test(NAME test_mpi_partition_${ranks}
             COMMAND ${KMS_MPIEXEC} -n ${ranks} --oversubscribe --mca mpi_yield_when_idle 1 --mca btl self,vader
                     --mca btl_vader_single_copy_mechanism none $<TARGET_FILE:test_mpi_partition>)
    set_tests_properties(test_mpi_partition_${ranks} PROPERTIES TIMEOUT 300 LABELS mpi
                         PASS_REGULAR_EXPRESSION "failures: PASS"
                         ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMP_NUM_THREADS=1;OMP_WAIT_POLICY=passive")
  endforeach()
else()
  message(STATUS "kmeans-studio: no MPI (Debian: libopenmpi-dev openmpi-bin): the MPI tests are not built")
endif()

# mpiexec -n 2|3 kmeans-cli run: the same files, byte for byte, as one process.
if(TARGET kms_mpi AND TARGET kmeans-cli)
  add_test(NAME test_mpi_cli COMMAND ${CMAKE_CURRENT_LIST_DIR}/../mpi/cli_ranks.sh $<TARGET_FILE:kmeans-cli> ${KMS_MPIEXEC})
  set_tests_properties(test_mpi_cli PROPERTIES TIMEOUT 600 LABELS mpi PASS_REGULAR_EXPRESSION "failures: PASS")
endif()

# mpiexec -n 2|3|4 kmeans-cli run --backend cuda: a GPU per rank, the same files as one
# process's --devices 0 run; skips (77) without a CUDA device.
if(TARGET kms_mpi AND TARGET kmeans-cli AND KMS_HAVE_CUDA)
  add_test(NAME test_mpi_cli_cuda COMMAND ${CMAKE_CURRENT_LIST_DIR}/../mpi/cli_ranks_cuda.sh $<TARGET_FILE:kmeans-cli> ${KMS_MPIEXEC})
  set_tests_properties(test_mpi_cli_cuda PROPERTIES TIMEOUT 900 LABELS "mpi;gpu" SKIP_RETURN_CODE 77
                       PASS_REGULAR_EXPRESSION "failures: PASS;SKIP: no CUDA device")
endif()
