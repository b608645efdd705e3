// Callback: a move-only `void()` callable that keeps small captures inline.
//
// Every EventLoop::schedule callback was a std::function, whose inline buffer holds 16 bytes:
// the usual capture (`[this, ref]` with an ObjectRef of three strings, `[this, key]`, a client
// request with its reply) did not fit, so scheduling one allocated and running it freed
// (docs/performance.md §11). A Callback stores callables up to kInlineBytes in place and larger
// ones on the heap; it is moved, never copied.
//
// Contract:
//  - Callback(f) takes any callable `f()` (lambda, std::function, function pointer); a null
//    function pointer or an empty std::function still makes a non-empty Callback (as with
//    std::function, calling the empty std::function inside throws std::bad_function_call).
//  - operator() requires a non-empty Callback (asserted); a moved-from Callback is empty.
//  - Not for sharing between threads while called (a run is single-threaded).
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

#include "sim/core/assert.h"

namespace wsim {

class Callback {
 public:
  static constexpr std::size_t kInlineBytes = 112;

  Callback() = default;
  Callback(std::nullptr_t) {}  // NOLINT(google-explicit-constructor): like std::function.
  template <typename F, typename D = std::decay_t<F>,
            typename = std::enable_if_t<!std::is_same_v<D, Callback> && std::is_invocable_v<D&>>>
  Callback(F&& f) {  // NOLINT(google-explicit-constructor): like std::function.
    if constexpr (fits_inline<D>()) {
      ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
      ops_ = &kInlineOps<D>;
    } else {
      ::new (static_cast<void*>(storage_)) D*(new D(std::forward<F>(f)));
      ops_ = &kHeapOps<D>;
    }
  }
  Callback(Callback&& other) noexcept { take(other); }
  Callback& operator=(Callback&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  Callback(const Callback&) = delete;
  Callback& operator=(const Callback&) = delete;
  ~Callback() { reset(); }

  void operator()() {
    WSIM_ASSERT(ops_ != nullptr);
    ops_->invoke(storage_);
  }
  explicit operator bool() const { return ops_ != nullptr; }
  friend bool operator==(const Callback& c, std::nullptr_t) { return c.ops_ == nullptr; }

  // True when a callable of type D is stored inline (tests).
  template <typename D>
  static constexpr bool fits_inline() {
    return sizeof(D) <= kInlineBytes && alignof(D) <= alignof(std::max_align_t) &&
           std::is_nothrow_move_constructible_v<D>;
  }

 private:
  struct Ops {
    void (*invoke)(void* storage);
    void (*relocate)(void* from, void* to) noexcept;  // Move-constructs at `to`, destroys `from`.
    void (*destroy)(void* storage) noexcept;
  };
  template <typename D>
  static constexpr Ops kInlineOps = {
      [](void* s) { (*std::launder(static_cast<D*>(s)))(); },
      [](void* from, void* to) noexcept {
        D* f = std::launder(static_cast<D*>(from));
        ::new (to) D(std::move(*f));
        f->~D();
      },
      [](void* s) noexcept { std::launder(static_cast<D*>(s))->~D(); },
  };
  template <typename D>
  static constexpr Ops kHeapOps = {
      [](void* s) { (**std::launder(static_cast<D**>(s)))(); },
      [](void* from, void* to) noexcept { ::new (to) D*(*std::launder(static_cast<D**>(from))); },
      [](void* s) noexcept { delete *std::launder(static_cast<D**>(s)); },
  };

  void take(Callback& other) noexcept {
    WSIM_ASSERT(ops_ == nullptr);  // Only into an empty Callback: the old callable would leak.
    if (other.ops_ == nullptr) return;
    other.ops_->relocate(other.storage_, storage_);
    ops_ = std::exchange(other.ops_, nullptr);
  }
  void reset() noexcept {
    if (ops_ != nullptr) std::exchange(ops_, nullptr)->destroy(storage_);
  }

  alignas(std::max_align_t) unsigned char storage_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace wsim
