# CUDA solver benchmark (issue 3): needs the CUDA back end; docs/lab/device-scripts/device_bench.sh runs it.
if(KMS_HAVE_CUDA)
  add_executable(bench_cuda_solvers ${CMAKE_CURRENT_LIST_DIR}/../gpu/bench_cuda_solvers.cpp
                                    ${CMAKE_CURRENT_LIST_DIR}/../gpu/bench_floor.cu)
  target_link_libraries(bench_cuda_solvers PRIVATE kms_gpu kms_core kms_warnings CUDA::cudart OpenMP::OpenMP_CXX)
  set_target_properties(bench_cuda_solvers PROPERTIES CUDA_STANDARD 17)
endif()
