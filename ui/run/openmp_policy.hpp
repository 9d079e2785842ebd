#pragma once
// How the OpenMP worker threads wait between parallel regions, as the studio
// reports it (status line, About, scripted runs' timing line).
#include <QString>

namespace kms::ui {

// Set (to "1") by kmeans-studio when it chose OMP_WAIT_POLICY=passive itself (app/studio/main.cpp).
inline constexpr const char* kStudioSetWaitPolicy = "KMS_STUDIO_SET_OMP_WAIT_POLICY";

// "OpenMP wait policy: ..." from OMP_WAIT_POLICY / GOMP_SPINCOUNT as this process sees them.
QString openmp_wait_policy_text();

}  // namespace kms::ui
