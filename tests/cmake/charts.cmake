# The studio's numbers widgets (ui/charts, ui/scores, ui/compare): plot widget,
# iteration charts, scores panel, silhouette plot, compare table, palette.
# Linked from the studio's kms_ui when it is built (it globs these folders);
# otherwise (studio off: -DKMS_WITH_QT=OFF) from a small library of their own.
# Run offscreen (no display needed).
find_package(Qt6 QUIET COMPONENTS Widgets)
if(NOT Qt6Widgets_FOUND)
  message(STATUS "kmeans-studio: Qt6 Widgets not found, charts tests skipped")
  return()
endif()

if(TARGET kms_ui)
  set(KMS_CHARTS_LIBRARY kms_ui)
else()
  set(KMS_CHARTS_LIBRARY kms_charts_for_tests)
  file(GLOB KMS_CHARTS_SOURCES CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/ui/charts/*.cpp ${PROJECT_SOURCE_DIR}/ui/charts/*.hpp
       ${PROJECT_SOURCE_DIR}/ui/scores/*.cpp ${PROJECT_SOURCE_DIR}/ui/scores/*.hpp
       ${PROJECT_SOURCE_DIR}/ui/compare/*.cpp ${PROJECT_SOURCE_DIR}/ui/compare/*.hpp)
  add_library(kms_charts_for_tests STATIC ${KMS_CHARTS_SOURCES})
  set_target_properties(kms_charts_for_tests PROPERTIES AUTOMOC ON)
  target_include_directories(kms_charts_for_tests PUBLIC ${PROJECT_SOURCE_DIR}/ui)
  target_link_libraries(kms_charts_for_tests PUBLIC Qt6::Widgets kms_core PRIVATE kms_warnings)
endif()

file(GLOB KMS_CHARTS_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/../ui_charts/test_*.cpp)
foreach(source ${KMS_CHARTS_TESTS})
  get_filename_component(name ${source} NAME_WE)
  kms_add_test(charts_${name} SOURCES ${source} LIBS ${KMS_CHARTS_LIBRARY} Qt6::Widgets TIMEOUT 120 LABELS ui)
  set_target_properties(charts_${name} PROPERTIES AUTOMOC ON)
  set_property(TEST charts_${name} APPEND PROPERTY ENVIRONMENT "QT_QPA_PLATFORM=offscreen")
endforeach()
