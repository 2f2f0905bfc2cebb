#pragma once
// The long physics cases at two sizes: full size in the optimised builds, a smaller case in the sanitizer build (the
// "sanitize" preset, clang ASan + UBSan, 3 to 5 times slower), which is there to find memory and undefined-behaviour
// errors on every code path, not to measure the physics more finely; each suite then takes well under a minute on
// the 2-core machine (tests/CMakeLists.txt: MRWB_TEST_COSTS). A smaller case asserts the same physics; where its
// statistics differ (fewer replicas, a noisier estimate), the suite derives its bound there and says why.
namespace mrwb::test {

// True in a build with AddressSanitizer (clang: __has_feature; gcc: __SANITIZE_ADDRESS__).
constexpr bool sanitized() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

// `full` in the optimised builds, `small` under the sanitizer.
template <typename T>
constexpr T full_or_sanitized(T full, T small) {
  return sanitized() ? small : full;
}

}  // namespace mrwb::test
