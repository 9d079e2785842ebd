// Precompiled for the Qt Test suites that link only the engine (tests/CMakeLists.txt,
// kms_suite_pch): Qt Test and the standard headers most suites use. Only headers that
// rarely change: the engine's own are parsed per suite, so editing them does not
// rebuild this.
#pragma once
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>
