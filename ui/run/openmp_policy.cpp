#include "run/openmp_policy.hpp"

#include <cstdlib>

namespace kms::ui {

QString openmp_wait_policy_text() {
    const char* policy = std::getenv("OMP_WAIT_POLICY");
    const char* spin = std::getenv("GOMP_SPINCOUNT");
    QString text = QStringLiteral("OpenMP wait policy: ");
    if (policy && *policy) text += QStringLiteral("OMP_WAIT_POLICY=%1").arg(QString::fromLocal8Bit(policy));
    if (spin && *spin) text += QStringLiteral("%1GOMP_SPINCOUNT=%2").arg(policy && *policy ? QStringLiteral(", ") : QString(), QString::fromLocal8Bit(spin));
    if (!(policy && *policy) && !(spin && *spin)) text += QStringLiteral("libgomp's default (spin, then sleep)");
    if (const char* studio = std::getenv(kStudioSetWaitPolicy); studio && *studio == '1')
        text += QStringLiteral(" (set by kmeans-studio)");
    return text;
}

}  // namespace kms::ui
