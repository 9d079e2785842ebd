#pragma once
// The per-point arrays a run hands to the views and the scores: shared and
// immutable, so a queued signal or a background job copies a pointer, never n values.
#include <QMetaType>

#include <cstdint>
#include <memory>
#include <vector>

#include "kms/solver.hpp"

namespace kms::ui {

using LabelsPtr = std::shared_ptr<const std::vector<std::int32_t>>;
using PointStatusPtr = std::shared_ptr<const std::vector<PointStatus>>;

}  // namespace kms::ui

Q_DECLARE_METATYPE(kms::ui::LabelsPtr)
Q_DECLARE_METATYPE(kms::ui::PointStatusPtr)
