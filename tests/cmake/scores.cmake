# Quality scores: the CUDA silhouette suite (skips without a CUDA device), and the
# CLI check in test_scores needs kmeans-cli built first.
kms_add_test(test_gpu_scores SOURCES ${CMAKE_CURRENT_LIST_DIR}/../gpu/test_gpu_scores.cpp TIMEOUT 300 LABELS gpu)
set_target_properties(test_gpu_scores PROPERTIES AUTOMOC ON)
if(TARGET test_scores AND TARGET kmeans-cli)
  add_dependencies(test_scores kmeans-cli)
endif()
