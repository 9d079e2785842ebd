# The studio executable; included by app/CMakeLists.txt when Qt6 is found.
add_executable(kmeans-studio ${CMAKE_CURRENT_SOURCE_DIR}/studio/main.cpp)
target_link_libraries(kmeans-studio PRIVATE kms_ui kms_gpu kms_core kms_warnings)
