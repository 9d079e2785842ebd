# Out of core under a real memory limit (issue 42): kmeans-cli run under ulimit -v 64 MiB
# on a 256 MiB .npy, byte for byte an in-memory run's files (~4.5 CPU-s on the 2-core
# CI machine). Not in the sanitizer builds: ASan's shadow memory cannot live under ulimit -v.
if(TARGET kmeans-cli)
  add_test(NAME test_out_of_core_cli
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/../out_of_core/memory_limit.sh $<TARGET_FILE:kmeans-cli>)
  set_tests_properties(test_out_of_core_cli PROPERTIES TIMEOUT 300 LABELS out_of_core
                       PASS_REGULAR_EXPRESSION "failures: PASS" ENVIRONMENT "OMP_WAIT_POLICY=passive")
endif()

# test_out_of_core (the suite, tests/test_out_of_core.cpp): waiting OpenMP threads yield the
# core, as in the MPI tests: the suite's solver's reader thread and two OpenMP threads
# on two busy cores otherwise spin against each other (a 1-s suite took 30 s at load 9).
if(TEST test_out_of_core)
  set_tests_properties(test_out_of_core PROPERTIES ENVIRONMENT "${KMS_TEST_ENVIRONMENT};OMP_WAIT_POLICY=passive")
endif()
