#pragma once
// The one Catch2 include of the test suite, for Catch2 v2 (Debian 12: <catch2/catch.hpp>) and v3 (Debian 13:
// <catch2/catch_all.hpp>): the version CMake found and links (REPRO_CATCH2_MAJOR, tests/CMakeLists.txt), not
// whichever headers the include path shows first (a GPU machine had v3 headers beside the v2 it was given).
// Tests include this and write repro::test::Contains (a substring matcher) and Approx.
#if defined(REPRO_CATCH2_MAJOR)
#define REPRO_CATCH2_V3 (REPRO_CATCH2_MAJOR >= 3)
#elif __has_include(<catch2/catch_all.hpp>)
#define REPRO_CATCH2_V3 1
#else
#define REPRO_CATCH2_V3 0
#endif
#if REPRO_CATCH2_V3
#include <catch2/catch_all.hpp>

#include <string>

using Catch::Approx;
namespace repro::test {
// v3 renamed the substring matcher ContainsSubstring (its Contains matches an element of a range).
inline Catch::Matchers::StringContainsMatcher Contains(const std::string& text,
                                                       Catch::CaseSensitive cs = Catch::CaseSensitive::Yes) {
  return Catch::Matchers::ContainsSubstring(text, cs);
}
}  // namespace repro::test
#else
#include <catch2/catch.hpp>

namespace repro::test {
using Catch::Matchers::Contains;
}  // namespace repro::test
#endif
