// FramePool: recycles coroutine frames (Task promises allocate through it, task.h).
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

namespace wsim::frame_pool {

inline constexpr std::size_t kGrainBytes = 64;
inline constexpr std::size_t kMaxPooledBytes = 2048;

void* allocate(std::size_t size);
void release(void* frame, std::size_t size) noexcept;

}  // namespace wsim::frame_pool
