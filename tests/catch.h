#pragma once
// The one Catch2 include of the test suite, for Catch2 v2 (Debian 12: <catch2/catch.hpp>) and v3 (Debian 13:
// <catch2/catch_all.hpp>). Tests include this and write repro::test::Contains (a substring matcher) and Approx.
#if __has_include(<catch2/catch_all.hpp>)
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
