// The source the precompiled-header target needs (tests/CMakeLists.txt, kms_suite_pch).
