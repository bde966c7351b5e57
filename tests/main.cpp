// Catch2 v2's main (v3 links Catch2::Catch2WithMain instead: tests/CMakeLists.txt).
#define CATCH_CONFIG_MAIN
#include "catch.h"
