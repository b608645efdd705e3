// ChoiceSource backends (choice.h): seeded streams, tapes, keyed tapes and libFuzzer bytes, and the
// choices.bin encoding of a recorded run.
#include "sim/core/choice.h"

#include <cstring>

#include "sim/core/assert.h"

namespace wsim {

bool ChoiceStream::chance(Ratio ratio) {
  WSIM_ASSERT_GT(ratio.den, 0u);
  WSIM_ASSERT_LE(ratio.num, ratio.den);
  if (ratio.num == 0) return false;
  if (ratio.num == ratio.den) return true;
  // The top `num` values of [0, den) mean "yes", so draw 0 means "no".
  return below(ratio.den) >= ratio.den - ratio.num;
}

std::int64_t ChoiceStream::range(std::int64_t lo, std::int64_t hi) {
  WSIM_ASSERT_LE(lo, hi);
  WSIM_ASSERT(source_ != nullptr);
  const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
  if (span == 0) return lo + static_cast<std::int64_t>(source_->draw(index_, UINT64_MAX));
  const std::int64_t value = lo + static_cast<std::int64_t>(below(span));
  WSIM_ASSERT_GE(value, lo);
  WSIM_ASSERT_LE(value, hi);
  return value;
}

ChoiceSource ChoiceSource::from_seed(std::uint64_t seed) { return from_seed(seed, seed); }

ChoiceSource ChoiceSource::from_seed(std::uint64_t seed, std::uint64_t swarm_seed) {
  ChoiceSource source(Backend::kSeed);
  source.seed_ = seed;
  source.swarm_seed_ = swarm_seed;
  WSIM_ASSERT_EQ(source.consumed_, 0u);
  return source;
}

bool ChoiceSource::is_swarm_stream(std::string_view name) {
  WSIM_ASSERT(!name.empty());  // Paired with stream(): every stream has a name.
  constexpr std::string_view kSuffix = ".swarm";
  return name == "swarm" || name == "swarm2" || name == "incidents" || name == "scheduler" ||
         (name.size() > kSuffix.size() && name.substr(name.size() - kSuffix.size()) == kSuffix);
}

ChoiceSource ChoiceSource::from_tape(std::vector<std::uint64_t> values) {
  ChoiceSource source(Backend::kTape);
  source.tape_ = std::move(values);
  WSIM_ASSERT_EQ(source.cursor_, 0u);
  return source;
}

ChoiceSource ChoiceSource::from_keyed_tape(KeyedTape values) {
  ChoiceSource source(Backend::kKeyedTape);
  source.keyed_tape_ = std::move(values);
  WSIM_ASSERT(source.keyed_cursor_.empty());
  return source;
}

ChoiceSource ChoiceSource::from_bytes(std::span<const std::uint8_t> bytes, BytesTail tail) {
  ChoiceSource source(Backend::kBytes);
  source.bytes_.assign(bytes.begin(), bytes.end());
  if (tail == BytesTail::kRandom) {
    source.tail_.emplace(fnv1a64(std::string_view(
        reinterpret_cast<const char*>(source.bytes_.data()), source.bytes_.size())));
  }
  WSIM_ASSERT_EQ(source.bytes_.size(), bytes.size());
  return source;
}

ChoiceStream ChoiceSource::stream(std::string_view name) {
  WSIM_ASSERT_MSG(!name.empty(), "a choice stream needs a name (STYLE.md §2)");
  auto it = stream_index_by_name_.find(name);
  if (it == stream_index_by_name_.end()) {
    const int index = static_cast<int>(stream_index_by_name_.size());
    it = stream_index_by_name_.emplace(std::string(name), index).first;
    if (backend_ == Backend::kSeed) {
      generators_.push_back(Xoshiro256(is_swarm_stream(name) ? swarm_seed_ : seed_).fork(name));
    }
  }
  // Streams are numbered in first-use order; the seed backend has one generator per stream.
  WSIM_ASSERT_LT(static_cast<std::size_t>(it->second), stream_index_by_name_.size());
  if (backend_ == Backend::kSeed) WSIM_ASSERT_EQ(generators_.size(), stream_index_by_name_.size());
  return ChoiceStream(this, it->second);
}

std::uint64_t ChoiceSource::draw_replayed(std::uint64_t bound) {
  WSIM_ASSERT(backend_ != Backend::kSeed);
  switch (backend_) {
    case Backend::kTape:
      return next_from_tape(bound);
    case Backend::kKeyedTape:
      return next_from_keyed_tape(bound);
    case Backend::kBytes:
      return next_from_bytes(bound);
    case Backend::kSeed:
      break;
  }
  WSIM_ASSERT_MSG(false, "draw_replayed: the seed backend draws from its generators");
  return 0;
}

std::string_view ChoiceSource::current_key() const {
  // A KeyScope names its key; an empty one would merge its draws into the unnamed key's tape.
  if (scoped_) WSIM_ASSERT(!scope_key_.empty());
  if (scoped_) return scope_key_;
  return key_source_ ? key_source_() : std::string_view("-");
}

std::uint32_t ChoiceSource::current_key_index() {
  const std::string_view key = current_key();
  // Consecutive draws are mostly by one actor: compare with the last key before the map.
  if (!key_names_.empty() && key_names_[last_key_index_] == key) return last_key_index_;
  auto it = key_index_by_name_.find(key);
  if (it == key_index_by_name_.end()) {
    it = key_index_by_name_.emplace(std::string(key), static_cast<std::uint32_t>(key_names_.size()))
             .first;
    key_names_.emplace_back(key);
  }
  WSIM_ASSERT_EQ(key_names_.size(), key_index_by_name_.size());
  last_key_index_ = it->second;
  WSIM_ASSERT_LT(last_key_index_, key_names_.size());
  WSIM_ASSERT_EQ(key_names_[last_key_index_], key);  // The index found names the asked key.
  return last_key_index_;
}

std::uint64_t ChoiceSource::next_from_keyed_tape(std::uint64_t bound) {
  WSIM_ASSERT_GT(bound, 0u);
  WSIM_ASSERT(backend_ == Backend::kKeyedTape);  // draw_replayed() dispatches by backend.
  const std::string_view key = current_key();
  const auto values = keyed_tape_.find(key);
  auto at = keyed_cursor_.find(key);
  if (at == keyed_cursor_.end()) at = keyed_cursor_.emplace(std::string(key), 0).first;
  std::size_t& cursor = at->second;
  if (values == keyed_tape_.end() || cursor >= values->second.size()) {
    exhausted_ = true;
    return 0;
  }
  const std::uint64_t raw = values->second[cursor++];
  WSIM_ASSERT_LE(cursor, values->second.size());
  return raw < bound ? raw : raw % bound;
}

ChoiceSource::KeyedTape keyed_tape_of(const std::vector<Choice>& record,
                                      const std::vector<std::uint32_t>& keys,
                                      const std::vector<std::string>& names) {
  WSIM_ASSERT_EQ(keys.size(), record.size());
  ChoiceSource::KeyedTape tape;
  for (std::size_t i = 0; i < record.size(); ++i) {
    WSIM_ASSERT_LT(keys[i], names.size());
    tape[names[keys[i]]].push_back(record[i].value);
  }
  std::size_t values_count = 0;  // Every choice lands on exactly one key's tape.
  for (const auto& [key, values] : tape) values_count += values.size();
  WSIM_ASSERT_EQ(values_count, record.size());
  return tape;
}

std::uint64_t ChoiceSource::next_from_tape(std::uint64_t bound) {
  WSIM_ASSERT_GT(bound, 0u);
  WSIM_ASSERT(backend_ == Backend::kTape);
  if (cursor_ >= tape_.size()) {
    exhausted_ = true;
    return 0;
  }
  const std::uint64_t raw = tape_[cursor_++];
  WSIM_ASSERT_LE(cursor_, tape_.size());
  return raw < bound ? raw : raw % bound;
}

std::uint64_t ChoiceSource::next_from_bytes(std::uint64_t bound) {
  WSIM_ASSERT_GT(bound, 0u);
  WSIM_ASSERT(backend_ == Backend::kBytes);
  if (cursor_ >= bytes_.size()) {
    exhausted_ = true;
    return tail_ ? tail_->below(bound) : 0;
  }
  std::uint64_t raw = 0;
  int width = 0;
  for (std::uint64_t rest = bound - 1; rest != 0; rest >>= 8) ++width;
  WSIM_ASSERT_LE(width, 8);
  for (int i = 0; i < width && cursor_ < bytes_.size(); ++i) {
    raw |= static_cast<std::uint64_t>(bytes_[cursor_++]) << (8 * i);
  }
  WSIM_ASSERT_LE(cursor_, bytes_.size());
  return raw < bound ? raw : raw % bound;
}

namespace {
constexpr char kMagic[] = "WSIMCHO1";
constexpr std::size_t kMagicSize = 8;

void put_u64(std::string& out, std::uint64_t v) {
  const std::size_t size_before = out.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  WSIM_ASSERT_EQ(out.size(), size_before + 8);
}
std::uint64_t get_u64(std::string_view in, std::size_t offset) {
  WSIM_ASSERT_LE(offset + 8, in.size());
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[offset + i])) << (8 * i);
  }
  return v;
}
}  // namespace

std::string encode_choice_record(const std::vector<Choice>& record) {
  std::string out(kMagic, kMagicSize);
  put_u64(out, record.size());
  for (const Choice& choice : record) {
    put_u64(out, choice.value);
    put_u64(out, choice.bound);
  }
  // Paired with decode_choice_record's size check.
  WSIM_ASSERT_EQ(out.size(), kMagicSize + 8 + 16 * record.size());
  return out;
}

bool decode_choice_record(std::string_view bytes, std::vector<Choice>& record, std::string& error) {
  record.clear();
  if (bytes.size() < kMagicSize + 8 || bytes.substr(0, kMagicSize) != kMagic) {
    error = "byte 0: not a choice record (expected magic WSIMCHO1 and a count)";
    return false;
  }
  const std::uint64_t count = get_u64(bytes, kMagicSize);
  const std::size_t body = bytes.size() - kMagicSize - 8;
  if (body % 16 != 0 || count != body / 16) {
    error = "byte 8: count " + std::to_string(count) + " does not match the " +
            std::to_string(body) + " bytes of choices that follow";
    return false;
  }
  WSIM_ASSERT_LE(count, bytes.size() / 16);  // Never reserve more than the input holds.
  record.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::size_t offset = kMagicSize + 8 + i * 16;
    Choice choice{get_u64(bytes, offset), get_u64(bytes, offset + 8)};
    if (choice.bound == 0 || choice.value >= choice.bound) {
      error = "byte " + std::to_string(offset) + ": choice " + std::to_string(i) + " value " +
              std::to_string(choice.value) + " not below its bound " + std::to_string(choice.bound);
      record.clear();
      return false;
    }
    record.push_back(choice);
  }
  WSIM_ASSERT_EQ(record.size(), count);
  return true;
}

}  // namespace wsim
