# bench_charts: paint cost of the studio's iteration charts (kms_charts: Qt6 Widgets).
if(NOT TARGET kms_charts)
  return()
endif()
add_executable(bench_charts ${PROJECT_SOURCE_DIR}/bench/charts/bench_charts.cpp)
target_link_libraries(bench_charts PRIVATE kms_charts Qt6::Widgets kms_core kms_warnings)
