# Out of core under a real memory limit (issue 42): kmeans-cli run under ulimit -v 64 MiB
# on a 256 MiB .npy, byte for byte an in-memory run's files (~4.5 CPU-s on the 2-core
# CI machine). Not in the sanitizer builds: ASan's shadow memory cannot live under ulimit -v.
if(TARGET kmeans-cli)
  add_test(NAME test_out_of_core_cli
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/../out_of_core/memory_limit.sh $<TARGET_FILE:kmeans-cli>)
  set_tests_properties(test_out_of_core_cli PROPERTIES TIMEOUT 300 LABELS out_of_core
                       PASS_REGULAR_EXPRESSION "failures: PASS")
endif()
