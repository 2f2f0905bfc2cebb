#pragma once
// An allocator whose value-less construct leaves an element's bytes as the allocation left them, for arrays
// of hundreds of MB that a parallel pass then writes entry by entry: a value-initialising resize would fault
// in and write every page on one thread first (the liver slab's 140 MB tissue entries, a GPU rank's 100 MB
// of transport stencil). Only for trivially copyable elements (plain records of numbers), whose lifetime an
// allocation begins; every entry must be written before it is read.
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace mrwb {

template <typename T>
struct UninitialisedAllocator : std::allocator<T> {
  static_assert(std::is_trivially_copyable_v<T>, "UninitialisedAllocator: elements must be plain records");
  template <typename U>
  struct rebind {
    using other = UninitialisedAllocator<U>;
  };
  template <typename U>
  void construct(U*) noexcept {}
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// A vector whose resize leaves new elements unwritten (above).
template <typename T>
using UninitialisedVector = std::vector<T, UninitialisedAllocator<T>>;

}  // namespace mrwb
