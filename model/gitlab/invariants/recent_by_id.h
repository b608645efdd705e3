// RecentById<V>: per request id, a value for the `capacity` largest ids stored so far — exactly
// what a std::map<std::uint64_t, V> holds when every insertion is followed by
// `while (size() > capacity) erase(begin())` (the checker's and the protocol model's "recent
// requests"), without a tree node allocated and freed per request (docs/performance.md §14.1).
//
// Entries are kept sorted by id in a deque: request ids grow with every exchange, so an insertion
// lands at the back and the trim pops the front, both O(1); an id below the back (a request
// answered out of order) is inserted in place. Lookups are binary searches.
// Contract: find() pointers and references stay valid until the next insert/assign/erase/clear.
// Single-threaded.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>

#include "sim/core/assert.h"

namespace wsim::gitlab {

template <typename V>
class RecentById {
 public:
  explicit RecentById(std::size_t capacity) : capacity_(capacity) { WSIM_ASSERT_GT(capacity, 0u); }

  // std::map::emplace followed by the trim: returns false (and changes nothing but the trim,
  // which is then a no-op) when `id` is already stored.
  bool insert(std::uint64_t id, V value) {
    auto it = position(id);
    if (it != entries_.end() && it->first == id) return false;
    place(it, id, std::move(value));
    WSIM_ASSERT_LE(entries_.size(), capacity_);  // Pairs with assign.
    return true;
  }
  // `map[id] = value` followed by the trim.
  void assign(std::uint64_t id, V value) {
    auto it = position(id);
    if (it != entries_.end() && it->first == id) {
      it->second = std::move(value);
      return;
    }
    place(it, id, std::move(value));
    WSIM_ASSERT_LE(entries_.size(), capacity_);
  }
  // The trim alone (a map the caller did not insert into this time).
  void trim() {
    while (entries_.size() > capacity_) entries_.pop_front();
    WSIM_ASSERT_LE(entries_.size(), capacity_);
  }
  const V* find(std::uint64_t id) const {
    if (entries_.empty() || entries_.back().first < id) return nullptr;
    if (entries_.back().first == id) return &entries_.back().second;  // The latest: the usual.
    auto it = std::lower_bound(entries_.begin(), entries_.end(), id, less_id);
    WSIM_ASSERT(it != entries_.end());  // The last id is greater: lower_bound stops before it.
    return it->first == id ? &it->second : nullptr;
  }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  void clear() { entries_.clear(); }

 private:
  using Entry = std::pair<std::uint64_t, V>;
  static bool less_id(const Entry& entry, std::uint64_t id) { return entry.first < id; }

  typename std::deque<Entry>::iterator position(std::uint64_t id) {
    if (entries_.empty() || entries_.back().first < id) return entries_.end();  // The usual case.
    auto it = std::lower_bound(entries_.begin(), entries_.end(), id, less_id);
    WSIM_ASSERT(it != entries_.end());  // The last id is at least `id`: place() relies on it.
    return it;
  }
  void place(typename std::deque<Entry>::iterator it, std::uint64_t id, V value) {
    // Ids stay sorted: `it` is the first entry with a greater id (the equal one was handled).
    if (it != entries_.end()) WSIM_ASSERT_GT(it->first, id);
    if (it == entries_.end()) {
      entries_.emplace_back(id, std::move(value));
    } else {
      entries_.emplace(it, id, std::move(value));
    }
    trim();
  }

  std::size_t capacity_;
  std::deque<Entry> entries_;
};

}  // namespace wsim::gitlab
