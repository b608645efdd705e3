// Fields (fields.h): the copy-on-write detach and the erase that keeps other copies intact.
#include "sim/kube/fields.h"

#include "sim/core/assert.h"

namespace wsim::kube {

const Fields::Map& Fields::empty_map() {
  static const Map* const kEmpty = new Map();
  WSIM_ASSERT(kEmpty->empty());  // Shared by every empty Fields: nobody writes through it.
  return *kEmpty;
}

Fields::Map& Fields::mutable_map() {
  if (!map_) {
    map_ = std::make_shared<Map>();
  } else if (map_.use_count() > 1) {
    map_ = std::make_shared<Map>(*map_);  // Detach: the other copies keep the old map.
  }
  WSIM_ASSERT_EQ(map_.use_count(), 1);
  return *map_;
}

Fields::size_type Fields::erase(const std::string& key) {
  if (!contains(key)) return 0;  // Nothing to erase: no need to detach.
  const size_type erased = mutable_map().erase(key);
  WSIM_ASSERT_EQ(erased, 1u);  // contains() saw it in the map we now own a copy of.
  return erased;
}

Fields::const_iterator Fields::erase(const_iterator pos) {
  WSIM_ASSERT(map_ != nullptr);
  WSIM_ASSERT(pos != map_->end());
  if (map_.use_count() == 1) return map_->erase(pos);
  const std::string key = pos->first;  // `pos` points into the shared map: find it in our copy.
  Map& own = mutable_map();
  auto it = own.find(key);
  WSIM_ASSERT(it != own.end());
  return own.erase(it);
}

}  // namespace wsim::kube
