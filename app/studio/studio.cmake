# The studio executable and its command line; included by app/CMakeLists.txt when
# Qt6 is found. kms_studio: the options (studio_options.*) and the scripted runs
# (scripted_run.*: --steps, --screenshot, --compare ...) over the window (kms_ui);
# includes as "studio/studio_options.hpp". ui/ never includes these.
add_library(kms_studio STATIC ${CMAKE_CURRENT_SOURCE_DIR}/studio/studio_options.cpp
            ${CMAKE_CURRENT_SOURCE_DIR}/studio/studio_options.hpp ${CMAKE_CURRENT_SOURCE_DIR}/studio/scripted_run.cpp
            ${CMAKE_CURRENT_SOURCE_DIR}/studio/scripted_run.hpp)
set_target_properties(kms_studio PROPERTIES AUTOMOC ON)
target_include_directories(kms_studio PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(kms_studio PUBLIC kms_ui Qt6::Widgets kms_core PRIVATE kms_warnings)
add_executable(kmeans-studio ${CMAKE_CURRENT_SOURCE_DIR}/studio/main.cpp)
target_link_libraries(kmeans-studio PRIVATE kms_studio kms_ui kms_gpu kms_core kms_warnings)
