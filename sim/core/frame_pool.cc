// FramePool (frame_pool.h): per-size free lists of coroutine frames, most recently freed first;
// plain operator new/delete under the sanitizers.
#include "sim/core/frame_pool.h"

#include <cstddef>
#include <cstdint>
#include <new>

#include "sim/core/assert.h"

#if defined(__SANITIZE_ADDRESS__)
#define WSIM_FRAME_POOL_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define WSIM_FRAME_POOL_OFF 1
#endif
#endif

namespace wsim::frame_pool {

namespace {

constexpr std::size_t kClasses = kMaxPooledBytes / kGrainBytes;

struct FreeFrame {
  FreeFrame* next;
};

// Heads of the free lists, by size class (class c holds frames of (c + 1) * kGrainBytes bytes).
// Constant-initialised and trivially destructible: no guard, no destructor per thread.
thread_local FreeFrame* free_heads[kClasses] = {};

std::size_t size_class(std::size_t size) {
  WSIM_ASSERT_GT(size, 0u);
  WSIM_ASSERT_LE(size, kMaxPooledBytes);
  return (size - 1) / kGrainBytes;
}

}  // namespace

void* allocate(std::size_t size) {
  WSIM_ASSERT_GT(size, 0u);
#ifndef WSIM_FRAME_POOL_OFF
  if (size <= kMaxPooledBytes) {
    const std::size_t c = size_class(size);
    if (FreeFrame* frame = free_heads[c]) {
      // A sound free list hands out only blocks operator new gave (aligned for any frame).
      WSIM_ASSERT_EQ(reinterpret_cast<std::uintptr_t>(frame) % alignof(std::max_align_t), 0u);
      free_heads[c] = frame->next;
      return frame;
    }
    return ::operator new((c + 1) * kGrainBytes);
  }
#endif
  return ::operator new(size);
}

void release(void* frame, std::size_t size) noexcept {
  if (frame == nullptr) return;
  WSIM_ASSERT_GT(size, 0u);  // The size allocate() was given (sized operator delete).
  // Paired with allocate(): only blocks operator new gave come back to a free list.
  WSIM_ASSERT_EQ(reinterpret_cast<std::uintptr_t>(frame) % alignof(std::max_align_t), 0u);
#ifndef WSIM_FRAME_POOL_OFF
  if (size <= kMaxPooledBytes) {
    const std::size_t c = size_class(size);
    auto* node = ::new (frame) FreeFrame{free_heads[c]};
    free_heads[c] = node;
    return;
  }
#endif
  ::operator delete(frame);
}

}  // namespace wsim::frame_pool
