# The studio's numbers widgets (ui/charts, ui/scores, ui/compare): plot widget,
# iteration charts, colour sequences, scores panel, silhouette plot, compare table.
# Each test links the feature library it tests (ui/CMakeLists.txt): kms_charts and
# kms_scores exist whenever Qt Widgets is found, kms_compare only with the studio.
# Run offscreen (no display needed).
if(NOT TARGET kms_charts)
  message(STATUS "kmeans-studio: Qt6 Widgets not found, charts tests skipped")
  return()
endif()

# kms_add_charts_test(NAME LIBRARY): tests/ui_charts/NAME.cpp as charts_NAME.
function(kms_add_charts_test name library)
  if(NOT TARGET ${library})
    message(STATUS "kmeans-studio: no ${library} (studio off), charts_${name} skipped")
    return()
  endif()
  kms_add_test(charts_${name} SOURCES ${CMAKE_CURRENT_LIST_DIR}/../ui_charts/${name}.cpp
               LIBS ${library} Qt6::Widgets TIMEOUT 120 LABELS ui)
  set_target_properties(charts_${name} PROPERTIES AUTOMOC ON)
  set_property(TEST charts_${name} APPEND PROPERTY ENVIRONMENT "QT_QPA_PLATFORM=offscreen")
endfunction()

kms_add_charts_test(test_plot_widget kms_charts)
kms_add_charts_test(test_iteration_charts kms_charts)
kms_add_charts_test(test_palette kms_charts)
kms_add_charts_test(test_scores_panel kms_scores)
kms_add_charts_test(test_compare_table kms_compare)
