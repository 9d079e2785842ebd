# Frame time of the studio's OpenGL point view (needs an X server / GL context:
# run it under xvfb-run, or on a desktop). Results: docs/studio.md.
if(TARGET kms_view)
  add_executable(bench_studio_frame ${CMAKE_CURRENT_LIST_DIR}/../studio/bench_studio_frame.cpp)
  target_link_libraries(bench_studio_frame PRIVATE kms_view kms_gpu kms_core kms_warnings)
endif()
