// SharedVector<T>: a std::vector<T> shared copy-on-write, for the list members of a kube::Object
// (conditions, owner references), as Fields is for its maps (fields.h).
//
// After the maps became shared (docs/performance.md §8.2), the vectors of Conditions (four strings
// each) and OwnerReferences (three strings each) were the largest part of an Object copy left, and
// `Condition::Condition` the largest caller of malloc (§8.7). A SharedVector holds its vector by
// shared pointer: copying one is a reference-count increment; the first write through a copy that
// still shares its vector copies it (detach). Reads see exactly a std::vector (same elements, same
// order), so nothing observable changes.
//
// Contract:
//  - const members never copy; the writers (mutable_vector, push_back, emplace_back, clear,
//    assignment) change only this SharedVector, never another copy.
//  - References and iterators stay valid while this SharedVector is not written (like a
//    std::vector that is not resized).
//  - Not for sharing between threads while written (a run is single-threaded).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "sim/core/assert.h"

namespace wsim::kube {

template <typename T>
class SharedVector {
 public:
  using Vector = std::vector<T>;
  using value_type = T;
  using size_type = typename Vector::size_type;
  using const_iterator = typename Vector::const_iterator;
  using iterator = const_iterator;  // Elements change through mutable_vector().

  SharedVector() = default;
  SharedVector(Vector vector)  // NOLINT(google-explicit-constructor): a SharedVector is a vector.
      : vector_(vector.empty() ? nullptr : std::make_shared<Vector>(std::move(vector))) {}
  SharedVector(std::initializer_list<T> init) : SharedVector(Vector(init)) {}

  // The vector itself, read-only (empty for a SharedVector that never held anything).
  const Vector& vector() const { return vector_ ? *vector_ : empty_vector(); }
  operator const Vector&() const { return vector(); }  // NOLINT(google-explicit-constructor)

  const_iterator begin() const { return vector().begin(); }
  const_iterator end() const { return vector().end(); }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }
  size_type size() const { return vector_ ? vector_->size() : 0; }
  bool empty() const { return !vector_ || vector_->empty(); }
  const T& operator[](size_type i) const {
    WSIM_ASSERT_LT(i, size());
    return vector()[i];
  }
  const T& front() const {
    WSIM_ASSERT(!empty());
    return vector().front();
  }
  const T& back() const {
    WSIM_ASSERT(!empty());
    return vector().back();
  }

  // Writes: detach, then change this SharedVector's own vector.
  Vector& mutable_vector() {
    if (!vector_) {
      vector_ = std::make_shared<Vector>();
    } else if (vector_.use_count() > 1) {
      vector_ = std::make_shared<Vector>(*vector_);  // The other copies keep the old vector.
    }
    WSIM_ASSERT_EQ(vector_.use_count(), 1);  // A write is never seen through another copy.
    return *vector_;
  }
  void push_back(T value) { mutable_vector().push_back(std::move(value)); }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    return mutable_vector().emplace_back(std::forward<Args>(args)...);
  }
  void clear() { vector_.reset(); }

  friend bool operator==(const SharedVector& a, const SharedVector& b) {
    return a.vector_ == b.vector_ || a.vector() == b.vector();
  }
  friend bool operator==(const SharedVector& a, const Vector& b) { return a.vector() == b; }

 private:
  static const Vector& empty_vector() {
    static const Vector* const kEmpty = new Vector();
    return *kEmpty;
  }
  std::shared_ptr<Vector> vector_;  // Null = empty. Shared read-only while use_count() > 1.
};

}  // namespace wsim::kube
