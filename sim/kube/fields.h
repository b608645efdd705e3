// Fields: the string → string maps of a kube::Object (labels, annotations, spec, status, data),
// shared copy-on-write.
//
// Copying an Object is the most frequent thing the simulation does (every write copies the
// stored object it changes, every reconciler copies what it edits, docs/performance.md §8), and a
// deep copy of five std::maps was a fifth of a run. A Fields holds its map by shared pointer:
// copying one is a reference-count increment; the first write through a copy that still shares
// its map copies the map (detach). Reads see exactly a std::map (same order, same lookups), so
// nothing observable changes. The map orders its keys with BytesLess (sim/kube/bytes_order.h):
// std::string's order without a call to memcmp per tree node (status fields read by key were a
// tenth of a Gitpod run, docs/performance.md §11); a std::map<std::string, std::string> converts
// to a Fields (a copy, same order) and compares equal to one with the same entries.
//
// Contract:
//  - const members never copy; the non-const ones (operator[], erase, insert_or_assign, emplace,
//    clear, mutable_map) detach first, so a write is never seen through another copy.
//  - A reference or iterator obtained from a Fields stays valid while that Fields is not written
//    (like std::map); after a write through a shared Fields, iterators into the old map no longer
//    belong to this Fields (erase(const_iterator) handles its own argument).
//  - Not for sharing between threads while written (a run is single-threaded).
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "sim/core/assert.h"
#include "sim/kube/bytes_order.h"

namespace wsim::kube {

class Fields {
 public:
  using Map = std::map<std::string, std::string, BytesLess>;
  using StdMap = std::map<std::string, std::string>;  // Same entries, same order.
  using key_type = Map::key_type;
  using mapped_type = Map::mapped_type;
  using value_type = Map::value_type;
  using size_type = Map::size_type;
  using const_iterator = Map::const_iterator;
  using iterator = Map::const_iterator;  // Entries change through operator[] / insert_or_assign.

  Fields() = default;
  Fields(Map map)  // NOLINT(google-explicit-constructor): a Fields is a map.
      : map_(map.empty() ? nullptr : std::make_shared<Map>(std::move(map))) {}
  Fields(const StdMap& map)  // NOLINT(google-explicit-constructor): a Fields is a map.
      : Fields(Map(map.begin(), map.end())) {}
  Fields(std::initializer_list<value_type> init) : Fields(Map(init)) {}
  template <typename It>
  Fields(It first, It last) : Fields(Map(first, last)) {}

  // The map itself, read-only (empty for a Fields that never held anything).
  const Map& map() const { return map_ ? *map_ : empty_map(); }
  operator const Map&() const { return map(); }  // NOLINT(google-explicit-constructor)

  const_iterator begin() const { return map().begin(); }
  const_iterator end() const { return map().end(); }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }
  // Lookups take a std::string_view (BytesLess is transparent): no key string is built.
  const_iterator find(std::string_view key) const { return map().find(key); }
  const_iterator lower_bound(std::string_view key) const { return map().lower_bound(key); }
  const_iterator upper_bound(std::string_view key) const { return map().upper_bound(key); }
  size_type count(std::string_view key) const { return map().count(key); }
  bool contains(std::string_view key) const { return map().contains(key); }
  const std::string& at(const std::string& key) const { return map().at(key); }
  // The value at `key`, or an empty view when absent (like status_or(key, "") without the copy).
  // Valid while this Fields is not written.
  std::string_view value_or_empty(std::string_view key) const {
    auto it = find(key);
    return it == end() ? std::string_view() : std::string_view(it->second);
  }
  size_type size() const { return map_ ? map_->size() : 0; }
  bool empty() const { return !map_ || map_->empty(); }

  // Writes: detach, then change this Fields' own map.
  Map& mutable_map();
  std::string& operator[](const std::string& key) { return mutable_map()[key]; }
  std::string& operator[](std::string&& key) { return mutable_map()[std::move(key)]; }
  size_type erase(const std::string& key);
  const_iterator erase(const_iterator pos);
  template <typename V>
  std::pair<const_iterator, bool> insert_or_assign(const std::string& key, V&& value) {
    auto result = mutable_map().insert_or_assign(key, std::forward<V>(value));
    WSIM_ASSERT(result.first->first == key);
    return result;
  }
  template <typename... Args>
  std::pair<const_iterator, bool> emplace(Args&&... args) {
    return mutable_map().emplace(std::forward<Args>(args)...);
  }
  std::pair<const_iterator, bool> insert(const value_type& entry) {
    auto result = mutable_map().insert(entry);
    WSIM_ASSERT(result.first->first == entry.first);
    return result;
  }
  void clear() { map_.reset(); }

  friend bool operator==(const Fields& a, const Fields& b) {
    return a.map_ == b.map_ || a.map() == b.map();
  }
  friend bool operator==(const Fields& a, const Map& b) { return a.map() == b; }
  friend bool operator==(const Fields& a, const StdMap& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  static const Map& empty_map();
  std::shared_ptr<Map> map_;  // Null = empty. Shared read-only while use_count() > 1.
};

}  // namespace wsim::kube
