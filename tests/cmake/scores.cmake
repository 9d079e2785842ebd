# Quality scores: the CUDA silhouette suite (skips without a CUDA device), and the
# CLI check in test_scores needs kmeans-cli built first.
kms_add_test(test_gpu_scores SOURCES ${CMAKE_CURRENT_LIST_DIR}/../gpu/test_gpu_scores.cpp TIMEOUT 300 LIBS kms_gpu LABELS gpu)
set_target_properties(test_gpu_scores PROPERTIES AUTOMOC ON)
if(TARGET test_scores AND TARGET kmeans-cli)
  add_dependencies(test_scores kmeans-cli)
endif()
# Suites that run kmeans-cli need it built first.
foreach(suite test_cli test_sklearn_fit test_spectral)
  if(TARGET ${suite} AND TARGET kmeans-cli)
    add_dependencies(${suite} kmeans-cli)
  endif()
endforeach()
