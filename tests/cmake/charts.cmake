# The studio's numbers widgets (ui/charts, ui/scores, ui/compare): plot widget,
# iteration charts, scores panel, silhouette plot, compare table, palette.
# Built into a small library of their own so these suites do not depend on the
# rest of the studio; run offscreen (no display needed).
find_package(Qt6 QUIET COMPONENTS Widgets)
if(NOT Qt6Widgets_FOUND)
  message(STATUS "kmeans-studio: Qt6 Widgets not found, charts tests skipped")
  return()
endif()

file(GLOB KMS_CHARTS_SOURCES CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/ui/charts/*.cpp ${PROJECT_SOURCE_DIR}/ui/charts/*.hpp
     ${PROJECT_SOURCE_DIR}/ui/scores/*.cpp ${PROJECT_SOURCE_DIR}/ui/scores/*.hpp
     ${PROJECT_SOURCE_DIR}/ui/compare/*.cpp ${PROJECT_SOURCE_DIR}/ui/compare/*.hpp)
add_library(kms_charts_for_tests STATIC ${KMS_CHARTS_SOURCES})
set_target_properties(kms_charts_for_tests PROPERTIES AUTOMOC ON)
target_include_directories(kms_charts_for_tests PUBLIC ${PROJECT_SOURCE_DIR}/ui)
target_link_libraries(kms_charts_for_tests PUBLIC Qt6::Widgets kms_core PRIVATE kms_warnings)

file(GLOB KMS_CHARTS_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/../ui_charts/test_*.cpp)
foreach(source ${KMS_CHARTS_TESTS})
  get_filename_component(name ${source} NAME_WE)
  kms_add_test(charts_${name} SOURCES ${source} LIBS kms_charts_for_tests Qt6::Widgets TIMEOUT 120 LABELS ui)
  set_target_properties(charts_${name} PROPERTIES AUTOMOC ON)
  set_property(TEST charts_${name} APPEND PROPERTY ENVIRONMENT "QT_QPA_PLATFORM=offscreen")
endforeach()
