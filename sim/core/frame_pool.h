// FramePool: recycles coroutine frames (Task promises allocate through it, task.h) and the
// small shared states a run creates by the thousand (OneShot and Delivery states, Fields maps,
// stored objects: frame_pool::make_shared).
//
// A run starts and ends tens of thousands of coroutines (every reconcile, client call and link
// call is one); each frame was a malloc and a free. The pool keeps freed frames in per-size free
// lists (64-byte size classes up to kMaxPooledBytes) and hands the most recently freed one out
// first, so a frame is usually still in cache (docs/performance.md §11). Larger frames go to
// operator new. Nothing depends on addresses, so runs are unchanged.
//
// Contract:
//  - frame_release(p, size) takes exactly what frame_allocate(size) returned, with that size.
//  - One pool per thread (thread_local heads); a frame freed on another thread than the one that
//    allocated it joins that thread's lists (a run is single-threaded; `wsim serve`'s threads
//    each run their own).
//  - Pooled frames are kept for the life of the thread (the peak of live frames, not more).
//  - Off under AddressSanitizer/MemorySanitizer (plain operator new/delete): the sanitizer keeps
//    its use-after-free checks on frames.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace wsim::frame_pool {

inline constexpr std::size_t kGrainBytes = 64;
inline constexpr std::size_t kMaxPooledBytes = 2048;

void* allocate(std::size_t size);
void release(void* frame, std::size_t size) noexcept;

// A std allocator over the pool (for std::allocate_shared: the object and its reference count
// in one pooled block).
template <typename T>
struct Allocator {
  using value_type = T;
  Allocator() = default;
  template <typename U>
  Allocator(const Allocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)
  T* allocate(std::size_t n) { return static_cast<T*>(frame_pool::allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { frame_pool::release(p, n * sizeof(T)); }
  template <typename U>
  friend bool operator==(const Allocator&, const Allocator<U>&) noexcept {
    return true;
  }
};

// std::make_shared with the block from the pool.
template <typename T, typename... Args>
std::shared_ptr<T> make_shared(Args&&... args) {
  return std::allocate_shared<T>(Allocator<std::remove_cv_t<T>>(), std::forward<Args>(args)...);
}

}  // namespace wsim::frame_pool
