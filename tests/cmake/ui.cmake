# The studio (issue 5): models, worker and panels offscreen; rendering under
# Xvfb (xvfb-run) where it is installed, else the rendering test skips itself.
if(NOT TARGET kms_ui)
  message(STATUS "kmeans-studio: no Qt studio, studio tests skipped")
  return()
endif()
find_package(Qt6 REQUIRED COMPONENTS Widgets)

kms_add_test(test_ui_controller SOURCES ${CMAKE_CURRENT_LIST_DIR}/../ui/test_ui_controller.cpp
             LIBS kms_studio kms_ui Qt6::Widgets TIMEOUT 300 LABELS ui)
set_target_properties(test_ui_controller PROPERTIES AUTOMOC ON)
set_property(TEST test_ui_controller APPEND PROPERTY ENVIRONMENT "QT_QPA_PLATFORM=offscreen")

kms_add_test(test_ui_window SOURCES ${CMAKE_CURRENT_LIST_DIR}/../ui/test_ui_window.cpp
             LIBS kms_ui Qt6::Widgets TIMEOUT 300 LABELS ui)
set_target_properties(test_ui_window PROPERTIES AUTOMOC ON)
set_property(TEST test_ui_window APPEND PROPERTY ENVIRONMENT "QT_QPA_PLATFORM=offscreen")

kms_add_test(test_ui_spectral SOURCES ${CMAKE_CURRENT_LIST_DIR}/../ui/test_ui_spectral.cpp
             LIBS kms_studio kms_ui Qt6::Widgets TIMEOUT 300 LABELS ui)
set_target_properties(test_ui_spectral PROPERTIES AUTOMOC ON)
set_property(TEST test_ui_spectral APPEND PROPERTY ENVIRONMENT "QT_QPA_PLATFORM=offscreen")

kms_add_test(test_ui_classroom SOURCES ${CMAKE_CURRENT_LIST_DIR}/../ui/test_ui_classroom.cpp
             LIBS kms_ui Qt6::Widgets TIMEOUT 300 LABELS ui)
set_target_properties(test_ui_classroom PROPERTIES AUTOMOC ON)
set_property(TEST test_ui_classroom APPEND PROPERTY ENVIRONMENT "QT_QPA_PLATFORM=offscreen")

# Rendering: a real GL context is needed, so run on an X server (Xvfb + Mesa's
# llvmpipe in CI). Not via kms_add_test: the command is wrapped in xvfb-run.
add_executable(test_ui_render ${CMAKE_CURRENT_LIST_DIR}/../ui/test_ui_render.cpp)
set_target_properties(test_ui_render PROPERTIES AUTOMOC ON)
target_include_directories(test_ui_render PRIVATE ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(test_ui_render PRIVATE Qt6::Core Qt6::Test Qt6::Widgets kms_ui kms_gpu kms_core kms_warnings)
add_dependencies(test_ui_render kmeans-studio)
find_program(KMS_XVFB_RUN xvfb-run)
if(KMS_XVFB_RUN)
  add_test(NAME test_ui_render
           COMMAND ${KMS_XVFB_RUN} -a -s "-screen 0 1600x1000x24" $<TARGET_FILE:test_ui_render>)
  set(_kms_render_env "QT_QPA_PLATFORM=xcb")
else()
  # No X server to start: the test finds no GL context and skips with the reason.
  add_test(NAME test_ui_render COMMAND test_ui_render)
  set(_kms_render_env "QT_QPA_PLATFORM=offscreen" "KMS_NO_XVFB=1")
endif()
set_tests_properties(test_ui_render PROPERTIES TIMEOUT 300 LABELS ui
                     SKIP_REGULAR_EXPRESSION "Totals: 0 passed, 0 failed, [1-9][0-9]* skipped"
                     ENVIRONMENT "${KMS_TEST_ENVIRONMENT};KMS_STUDIO=$<TARGET_FILE:kmeans-studio>;${_kms_render_env}")

# The classroom features' pixels and window layout (issue 11), on the same X server set-up.
add_executable(test_ui_classroom_render ${CMAKE_CURRENT_LIST_DIR}/../ui/test_ui_classroom_render.cpp)
set_target_properties(test_ui_classroom_render PROPERTIES AUTOMOC ON)
target_include_directories(test_ui_classroom_render PRIVATE ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(test_ui_classroom_render PRIVATE Qt6::Core Qt6::Test Qt6::Widgets kms_ui kms_gpu kms_core kms_warnings)
add_dependencies(test_ui_classroom_render kmeans-studio)
if(KMS_XVFB_RUN)
  add_test(NAME test_ui_classroom_render
           COMMAND ${KMS_XVFB_RUN} -a -s "-screen 0 1600x1000x24" $<TARGET_FILE:test_ui_classroom_render>)
else()
  add_test(NAME test_ui_classroom_render COMMAND test_ui_classroom_render)
endif()
set_tests_properties(test_ui_classroom_render PROPERTIES TIMEOUT 300 LABELS ui
                     SKIP_REGULAR_EXPRESSION "Totals: 0 passed, 0 failed, [1-9][0-9]* skipped"
                     ENVIRONMENT "${KMS_TEST_ENVIRONMENT};KMS_STUDIO=$<TARGET_FILE:kmeans-studio>;${_kms_render_env}")
# The same suite's projector cases (issue 36) on a 1280×720 screen without a window manager.
set(_kms_projector_cases projector_window_fits_and_compare_keeps_it_there projector_banner_floats_over_the_view
    projector_arrows_step_after_typing_and_tab projector_lesson_draws_predictions_and_membership_lines
    projector_elbow_and_spectral_keep_the_view_and_the_scores)
if(KMS_XVFB_RUN)
  add_test(NAME test_ui_projector COMMAND ${KMS_XVFB_RUN} -a -s "-screen 0 1280x720x24"
           $<TARGET_FILE:test_ui_classroom_render> ${_kms_projector_cases})
else()
  add_test(NAME test_ui_projector COMMAND test_ui_classroom_render ${_kms_projector_cases})
endif()
set_tests_properties(test_ui_projector PROPERTIES TIMEOUT 300 LABELS ui
                     SKIP_REGULAR_EXPRESSION "Totals: 0 passed, 0 failed, [1-9][0-9]* skipped"
                     ENVIRONMENT "${KMS_TEST_ENVIRONMENT};KMS_STUDIO=$<TARGET_FILE:kmeans-studio>;${_kms_render_env}")

# MP4 export (issue 11): the encoder's padding and timing, and a scripted run as GIF
# and MP4 decoded back with FFmpeg, on the same X server set-up; without FFmpeg it
# checks that .mp4 is refused with what to install.
add_executable(test_ui_animation_mp4 ${CMAKE_CURRENT_LIST_DIR}/../ui/test_ui_animation_mp4.cpp)
set_target_properties(test_ui_animation_mp4 PROPERTIES AUTOMOC ON)
target_include_directories(test_ui_animation_mp4 PRIVATE ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(test_ui_animation_mp4 PRIVATE Qt6::Core Qt6::Test Qt6::Widgets kms_ui kms_core kms_warnings)
if(KMS_HAVE_FFMPEG)
  target_link_libraries(test_ui_animation_mp4 PRIVATE PkgConfig::KMS_FFMPEG)
endif()
add_dependencies(test_ui_animation_mp4 kmeans-studio)
if(KMS_XVFB_RUN)
  add_test(NAME test_ui_animation_mp4
           COMMAND ${KMS_XVFB_RUN} -a -s "-screen 0 1600x1000x24" $<TARGET_FILE:test_ui_animation_mp4>)
else()
  add_test(NAME test_ui_animation_mp4 COMMAND test_ui_animation_mp4)
endif()
set_tests_properties(test_ui_animation_mp4 PROPERTIES TIMEOUT 300 LABELS ui
                     SKIP_REGULAR_EXPRESSION "Totals: 0 passed, 0 failed, [1-9][0-9]* skipped"
                     ENVIRONMENT "${KMS_TEST_ENVIRONMENT};KMS_STUDIO=$<TARGET_FILE:kmeans-studio>;${_kms_render_env}")

# The encoder as built without FFmpeg: its own compilation of mp4_encoder.cpp.
kms_add_test(test_ui_mp4_unavailable SOURCES ${CMAKE_CURRENT_LIST_DIR}/../ui/test_ui_mp4_unavailable.cpp
             ${PROJECT_SOURCE_DIR}/ui/export/mp4_encoder.cpp TIMEOUT 60 LABELS ui)
target_include_directories(test_ui_mp4_unavailable PRIVATE ${PROJECT_SOURCE_DIR}/ui)
set_target_properties(test_ui_mp4_unavailable PROPERTIES AUTOMOC ON)
# The k sweep's elbow chart and its background runner (ui/sweep/), offscreen.
kms_add_test(test_ui_sweep SOURCES ${CMAKE_CURRENT_LIST_DIR}/../ui/test_ui_sweep.cpp
             LIBS kms_ui Qt6::Widgets TIMEOUT 300 LABELS ui)
set_target_properties(test_ui_sweep PROPERTIES AUTOMOC ON)
set_property(TEST test_ui_sweep APPEND PROPERTY ENVIRONMENT "QT_QPA_PLATFORM=offscreen")

# Geographic data's map (ui/geo/): frame, km on both axes, graticule, offscreen.
kms_add_test(test_ui_geo SOURCES ${CMAKE_CURRENT_LIST_DIR}/../ui/test_ui_geo.cpp
             LIBS kms_ui Qt6::Widgets TIMEOUT 300 LABELS ui)
set_target_properties(test_ui_geo PROPERTIES AUTOMOC ON)
set_property(TEST test_ui_geo APPEND PROPERTY ENVIRONMENT "QT_QPA_PLATFORM=offscreen")
