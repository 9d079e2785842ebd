# CUDA solver tests (issue 3). Built in every configuration: without a CUDA build
# or a device they skip with the reason. KMS_GPU_TEST_SMALL=1 shrinks the cases
# (for compute-sanitizer runs).
kms_add_test(test_cuda_solvers SOURCES ${CMAKE_CURRENT_LIST_DIR}/../gpu/test_cuda_solvers.cpp TIMEOUT 900 LIBS kms_gpu LABELS gpu)
kms_add_test(test_cuda_init SOURCES ${CMAKE_CURRENT_LIST_DIR}/../gpu/test_cuda_init.cpp TIMEOUT 300 LIBS kms_gpu LABELS gpu)
kms_add_test(test_cuda_weights SOURCES ${CMAKE_CURRENT_LIST_DIR}/../gpu/test_cuda_weights.cpp TIMEOUT 600 LIBS kms_gpu LABELS gpu)
set_target_properties(test_cuda_weights PROPERTIES AUTOMOC ON)
kms_add_test(test_cuda_devices SOURCES ${CMAKE_CURRENT_LIST_DIR}/../gpu/test_cuda_devices.cpp TIMEOUT 900 LIBS kms_gpu LABELS gpu)
