// The structure-aware protobuf mutator and crossover (proto_mutator.h, docs/architecture.md §7):
// reflection helpers, site collection, one mutation per call, the per-type scalar mutations. The
// header's invariants bind here: randomness only from the caller's Xoshiro256 (except the
// mutate_bytes hook), output within max_size, recursion capped at kDepthMax.
#include "fuzz/proto_mutator.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <tuple>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>

#include "sim/core/assert.h"

namespace wsim::fuzz {

namespace pb = google::protobuf;
using Cpp = pb::FieldDescriptor::CppType;

const char* mutation_kind_name(MutationKind kind) {
  switch (kind) {
    case MutationKind::kScalar:
      return "scalar";
    case MutationKind::kAdd:
      return "add";
    case MutationKind::kDelete:
      return "delete";
    case MutationKind::kCopy:
      return "copy";
    case MutationKind::kSwap:
      return "swap";
  }
  return "?";
}

struct ProtoMutator::Site {
  MutationKind kind;
  pb::Message* message;
  const pb::FieldDescriptor* field;
  int index;  // Element of a repeated scalar field (kScalar), -1 otherwise.
};

namespace {

bool is_integer(Cpp type) {
  return type == Cpp::CPPTYPE_INT32 || type == Cpp::CPPTYPE_INT64 || type == Cpp::CPPTYPE_UINT32 ||
         type == Cpp::CPPTYPE_UINT64;
}

// Integers travel as int64 (uint64 as its bit pattern) and are truncated to the field's width on
// the way back, so every op below is defined for every integer type.
std::int64_t get_int(const pb::Message& m, const pb::FieldDescriptor* f, int index) {
  const pb::Reflection* r = m.GetReflection();
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case Cpp::CPPTYPE_INT32:
      return rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f);
    case Cpp::CPPTYPE_INT64:
      return rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f);
    case Cpp::CPPTYPE_UINT32:
      return rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f);
    case Cpp::CPPTYPE_UINT64:
      return static_cast<std::int64_t>(rep ? r->GetRepeatedUInt64(m, f, index)
                                           : r->GetUInt64(m, f));
    default:
      WSIM_ASSERT_MSG(false, "get_int of a non-integer field");
  }
  return 0;
}

void set_int(pb::Message& m, const pb::FieldDescriptor* f, int index, std::int64_t v) {
  const pb::Reflection* r = m.GetReflection();
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case Cpp::CPPTYPE_INT32:
      rep ? r->SetRepeatedInt32(&m, f, index, static_cast<std::int32_t>(v))
          : r->SetInt32(&m, f, static_cast<std::int32_t>(v));
      return;
    case Cpp::CPPTYPE_INT64:
      rep ? r->SetRepeatedInt64(&m, f, index, v) : r->SetInt64(&m, f, v);
      return;
    case Cpp::CPPTYPE_UINT32:
      rep ? r->SetRepeatedUInt32(&m, f, index, static_cast<std::uint32_t>(v))
          : r->SetUInt32(&m, f, static_cast<std::uint32_t>(v));
      return;
    case Cpp::CPPTYPE_UINT64:
      rep ? r->SetRepeatedUInt64(&m, f, index, static_cast<std::uint64_t>(v))
          : r->SetUInt64(&m, f, static_cast<std::uint64_t>(v));
      return;
    default:
      WSIM_ASSERT_MSG(false, "set_int of a non-integer field");
  }
}

int int_bits(Cpp type) {
  return type == Cpp::CPPTYPE_INT32 || type == Cpp::CPPTYPE_UINT32 ? 32 : 64;
}

// Appends element `i` of src's repeated field `f` (or its singular value, i < 0) to dst's `f`.
void append_value(const pb::Message& src, const pb::FieldDescriptor* f, int i, pb::Message& dst) {
  const pb::Reflection* s = src.GetReflection();
  const pb::Reflection* d = dst.GetReflection();
  WSIM_ASSERT(f->is_repeated());
  WSIM_ASSERT_LT(i, s->FieldSize(src, f));
  switch (f->cpp_type()) {
    case Cpp::CPPTYPE_INT32:
      return d->AddInt32(&dst, f, s->GetRepeatedInt32(src, f, i));
    case Cpp::CPPTYPE_INT64:
      return d->AddInt64(&dst, f, s->GetRepeatedInt64(src, f, i));
    case Cpp::CPPTYPE_UINT32:
      return d->AddUInt32(&dst, f, s->GetRepeatedUInt32(src, f, i));
    case Cpp::CPPTYPE_UINT64:
      return d->AddUInt64(&dst, f, s->GetRepeatedUInt64(src, f, i));
    case Cpp::CPPTYPE_DOUBLE:
      return d->AddDouble(&dst, f, s->GetRepeatedDouble(src, f, i));
    case Cpp::CPPTYPE_FLOAT:
      return d->AddFloat(&dst, f, s->GetRepeatedFloat(src, f, i));
    case Cpp::CPPTYPE_BOOL:
      return d->AddBool(&dst, f, s->GetRepeatedBool(src, f, i));
    case Cpp::CPPTYPE_ENUM:
      return d->AddEnumValue(&dst, f, s->GetRepeatedEnumValue(src, f, i));
    case Cpp::CPPTYPE_STRING:
      return d->AddString(&dst, f, s->GetRepeatedString(src, f, i));
    case Cpp::CPPTYPE_MESSAGE: {
      // Copy first: src may be dst, and adding may move the element's storage.
      std::unique_ptr<pb::Message> copy(s->GetRepeatedMessage(src, f, i).New());
      copy->CopyFrom(s->GetRepeatedMessage(src, f, i));
      d->AddMessage(&dst, f)->CopyFrom(*copy);
      return;
    }
  }
}

// Copies singular field `f` from src to dst (both of the same type).
void copy_singular(const pb::Message& src, const pb::FieldDescriptor* f, pb::Message& dst) {
  const pb::Reflection* s = src.GetReflection();
  const pb::Reflection* d = dst.GetReflection();
  WSIM_ASSERT(!f->is_repeated());
  if (!s->HasField(src, f)) return d->ClearField(&dst, f);
  switch (f->cpp_type()) {
    case Cpp::CPPTYPE_DOUBLE:
      return d->SetDouble(&dst, f, s->GetDouble(src, f));
    case Cpp::CPPTYPE_FLOAT:
      return d->SetFloat(&dst, f, s->GetFloat(src, f));
    case Cpp::CPPTYPE_BOOL:
      return d->SetBool(&dst, f, s->GetBool(src, f));
    case Cpp::CPPTYPE_ENUM:
      return d->SetEnumValue(&dst, f, s->GetEnumValue(src, f));
    case Cpp::CPPTYPE_STRING:
      return d->SetString(&dst, f, s->GetString(src, f));
    case Cpp::CPPTYPE_MESSAGE:
      return d->MutableMessage(&dst, f)->CopyFrom(s->GetMessage(src, f));
    default:
      return set_int(dst, f, -1, get_int(src, f, -1));
  }
}

// Moves the last element of repeated field `f` to position `pos`.
void move_last_to(pb::Message& m, const pb::FieldDescriptor* f, int pos) {
  const pb::Reflection* r = m.GetReflection();
  for (int i = r->FieldSize(m, f) - 1; i > pos; --i) r->SwapElements(&m, f, i, i - 1);
}

std::string serialize(const pb::Message& message) {
  std::string out;
  {
    pb::io::StringOutputStream stream(&out);
    pb::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);  // map order (STYLE.md §8)
    WSIM_ASSERT(message.SerializePartialToCodedStream(&coded));
  }
  return out;
}

std::unique_ptr<pb::Message> parse(const pb::Descriptor* root, const std::uint8_t* data,
                                   std::size_t size) {
  const pb::Message* prototype = pb::MessageFactory::generated_factory()->GetPrototype(root);
  WSIM_ASSERT(prototype != nullptr);
  std::unique_ptr<pb::Message> message(prototype->New());
  // Mutated bytes are often not UTF-8: the parse fails, and must not log once per execution.
  const pb::LogSilencer quiet;
  if (size > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
      !message->ParsePartialFromArray(data, static_cast<int>(size))) {
    message->Clear();
  }
  message->DiscardUnknownFields();
  return message;
}

std::size_t write_out(const std::string& bytes, std::uint8_t* out, std::size_t max_size) {
  WSIM_ASSERT_LE(bytes.size(), max_size);
  if (!bytes.empty()) std::memcpy(out, bytes.data(), bytes.size());
  return bytes.size();
}

}  // namespace

ProtoMutator::ProtoMutator(const pb::Descriptor* root, ProtoMutatorHooks hooks)
    : root_(root), hooks_(std::move(hooks)) {
  WSIM_ASSERT(root_ != nullptr);
  WSIM_ASSERT_GT(hooks_.repeated_max, 0);
  for (const auto& [name, range] : hooks_.int_ranges) WSIM_ASSERT_LE(range.first, range.second);
}

bool ProtoMutator::allowed(const pb::FieldDescriptor* field) const {
  return hooks_.mutable_fields.empty() || hooks_.mutable_fields.count(field->full_name()) > 0;
}

void ProtoMutator::collect(pb::Message& message, int depth, std::vector<Site>& sites) const {
  WSIM_ASSERT_LE(depth, kDepthMax);
  const pb::Descriptor* d = message.GetDescriptor();
  const pb::Reflection* r = message.GetReflection();
  for (int k = 0; k < d->field_count(); ++k) {
    const pb::FieldDescriptor* f = d->field(k);
    if (!allowed(f)) continue;
    const bool is_message = f->cpp_type() == Cpp::CPPTYPE_MESSAGE;
    if (!f->is_repeated()) {
      if (!is_message) {
        sites.push_back({MutationKind::kScalar, &message, f, -1});
      } else if (r->HasField(message, f) && depth < kDepthMax) {
        collect(*r->MutableMessage(&message, f), depth + 1, sites);
      }
      continue;
    }
    const int n = r->FieldSize(message, f);
    if (n < hooks_.repeated_max) sites.push_back({MutationKind::kAdd, &message, f, -1});
    if (n > 0) sites.push_back({MutationKind::kDelete, &message, f, -1});
    if (n > 0 && n < hooks_.repeated_max) sites.push_back({MutationKind::kCopy, &message, f, -1});
    if (n > 1) sites.push_back({MutationKind::kSwap, &message, f, -1});
    for (int i = 0; i < n; ++i) {
      if (!is_message) {
        sites.push_back({MutationKind::kScalar, &message, f, i});
      } else if (depth < kDepthMax) {
        collect(*r->MutableRepeatedMessage(&message, f, i), depth + 1, sites);
      }
    }
  }
}

MutationKind ProtoMutator::mutate(pb::Message& message, Xoshiro256& prng) const {
  WSIM_ASSERT_EQ(message.GetDescriptor(), root_);
  std::vector<Site> sites;
  collect(message, 0, sites);
  if (sites.empty()) return MutationKind::kScalar;
  // Kind first, then a site of that kind: a long event list must not drown add/swap in scalar
  // sites (every kind stays as likely as the others).
  std::vector<int> kinds;
  for (int kind = 0; kind < kMutationKindsCount; ++kind) {
    for (const Site& site : sites) {
      if (static_cast<int>(site.kind) != kind) continue;
      kinds.push_back(kind);
      break;
    }
  }
  WSIM_ASSERT(!kinds.empty());
  const auto kind = static_cast<MutationKind>(kinds[prng.below(kinds.size())]);
  std::vector<const Site*> of_kind;
  for (const Site& site : sites) {
    if (site.kind == kind) of_kind.push_back(&site);
  }
  const Site& site = *of_kind[prng.below(of_kind.size())];
  apply(site, prng);
  if (hooks_.post_process) hooks_.post_process(message);
  return kind;
}

void ProtoMutator::apply(const Site& site, Xoshiro256& prng) const {
  pb::Message& m = *site.message;
  const pb::Reflection* r = m.GetReflection();
  const pb::FieldDescriptor* f = site.field;
  if (site.kind == MutationKind::kScalar) return mutate_scalar(m, f, site.index, prng);
  if (site.kind == MutationKind::kAdd) return add_element(m, f, prng);
  const int n = r->FieldSize(m, f);
  WSIM_ASSERT_GT(n, 0);
  const int i = static_cast<int>(prng.below(static_cast<std::uint64_t>(n)));
  switch (site.kind) {
    case MutationKind::kDelete:
      for (int j = i; j + 1 < n; ++j) r->SwapElements(&m, f, j, j + 1);
      r->RemoveLast(&m, f);
      return;
    case MutationKind::kCopy:
      append_value(m, f, i, m);
      move_last_to(m, f, static_cast<int>(prng.below(static_cast<std::uint64_t>(n) + 1)));
      return;
    case MutationKind::kSwap: {
      WSIM_ASSERT_GE(n, 2);
      int j = static_cast<int>(prng.below(static_cast<std::uint64_t>(n) - 1));
      if (j >= i) ++j;
      r->SwapElements(&m, f, i, j);
      return;
    }
    default:
      WSIM_ASSERT_MSG(false, "unreachable mutation kind");
  }
}

void ProtoMutator::mutate_scalar(pb::Message& m, const pb::FieldDescriptor* f, int index,
                                 Xoshiro256& prng) const {
  const pb::Reflection* r = m.GetReflection();
  const bool rep = index >= 0;
  if (rep) WSIM_ASSERT_LT(index, r->FieldSize(m, f));
  switch (f->cpp_type()) {
    case Cpp::CPPTYPE_BOOL: {
      const bool v = rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f);
      return rep ? r->SetRepeatedBool(&m, f, index, !v) : r->SetBool(&m, f, !v);
    }
    case Cpp::CPPTYPE_ENUM: {
      const pb::EnumDescriptor* e = f->enum_type();
      const int v = e->value(static_cast<int>(prng.below(e->value_count())))->number();
      return rep ? r->SetRepeatedEnumValue(&m, f, index, v) : r->SetEnumValue(&m, f, v);
    }
    case Cpp::CPPTYPE_DOUBLE:
    case Cpp::CPPTYPE_FLOAT: {
      // Not in our schemas; kept simple: an integral value from the integer ops.
      const double v = static_cast<double>(
          mutate_int(f, 0, std::numeric_limits<int>::min(), std::numeric_limits<int>::max(), prng));
      if (f->cpp_type() == Cpp::CPPTYPE_FLOAT) {
        return rep ? r->SetRepeatedFloat(&m, f, index, static_cast<float>(v))
                   : r->SetFloat(&m, f, static_cast<float>(v));
      }
      return rep ? r->SetRepeatedDouble(&m, f, index, v) : r->SetDouble(&m, f, v);
    }
    case Cpp::CPPTYPE_STRING: {
      std::string v =
          mutate_string(f, rep ? r->GetRepeatedString(m, f, index) : r->GetString(m, f), prng);
      return rep ? r->SetRepeatedString(&m, f, index, std::move(v))
                 : r->SetString(&m, f, std::move(v));
    }
    case Cpp::CPPTYPE_MESSAGE:
      WSIM_ASSERT_MSG(false, "mutate_scalar of a message field");
      return;
    default: {
      std::int64_t lo = std::numeric_limits<std::int64_t>::min();
      std::int64_t hi = std::numeric_limits<std::int64_t>::max();
      const auto range = hooks_.int_ranges.find(f->full_name());
      if (range != hooks_.int_ranges.end()) std::tie(lo, hi) = range->second;
      return set_int(m, f, index, mutate_int(f, get_int(m, f, index), lo, hi, prng));
    }
  }
}

std::int64_t ProtoMutator::mutate_int(const pb::FieldDescriptor* f, std::int64_t value,
                                      std::int64_t lo, std::int64_t hi, Xoshiro256& prng) const {
  WSIM_ASSERT_LE(lo, hi);
  const bool ranged = hooks_.int_ranges.count(f->full_name()) > 0;
  const int bits = is_integer(f->cpp_type()) ? int_bits(f->cpp_type()) : 32;
  auto v = static_cast<std::uint64_t>(value);
  switch (prng.below(ranged ? 5 : 4)) {
    case 0: {  // A small delta, log-scaled: ±1 .. ±2^20 (e.g. 1 ms .. 17 min for *_ms).
      const std::uint64_t delta = 1 + prng.below(std::uint64_t{1} << prng.below(21));
      v = prng.below(2) == 0 ? v + delta : v - delta;
      break;
    }
    case 1:
      v ^= std::uint64_t{1} << prng.below(static_cast<std::uint64_t>(bits));
      break;
    case 2: {  // Boundary values of the type (and of the range).
      const bool is_signed =
          f->cpp_type() == Cpp::CPPTYPE_INT32 || f->cpp_type() == Cpp::CPPTYPE_INT64;
      const std::uint64_t top = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
      const std::uint64_t max = is_signed ? top >> 1 : top;
      const std::uint64_t min = is_signed ? ~(top >> 1) : 0;
      const std::uint64_t table[] = {0,
                                     1,
                                     ~std::uint64_t{0},
                                     max,
                                     min,
                                     static_cast<std::uint64_t>(lo),
                                     static_cast<std::uint64_t>(hi)};
      v = table[prng.below(ranged ? 7 : 5)];
      break;
    }
    case 3:
      v = prng.below(16);
      break;
    default:  // Uniform in the field's range.
      v = static_cast<std::uint64_t>(lo) +
          prng.below(static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1);
      if (static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1 == 0) v = prng.next();
      break;
  }
  auto out = static_cast<std::int64_t>(v);
  if (ranged) out = std::clamp(out, lo, hi);
  return out;
}

std::string ProtoMutator::mutate_string(const pb::FieldDescriptor* f, std::string value,
                                        Xoshiro256& prng) const {
  const auto words = hooks_.strings.find(f->full_name());
  if (words != hooks_.strings.end() && !words->second.empty() && prng.below(4) != 0) {
    return words->second[prng.below(words->second.size())];
  }
  const std::size_t cap = hooks_.string_bytes_max;
  if (value.size() > cap) value.resize(cap);
  if (hooks_.mutate_bytes) {
    // libFuzzer's own byte mutations (and its -dict words) inside the string.
    std::string buffer = value;
    buffer.resize(cap);
    const std::size_t n =
        hooks_.mutate_bytes(reinterpret_cast<std::uint8_t*>(buffer.data()), value.size(), cap);
    buffer.resize(std::min(n, cap));
    value = std::move(buffer);
  } else {
    const auto byte = static_cast<char>(prng.below(256));
    const std::size_t at = prng.below(value.size() + 1);
    switch (value.empty() ? 0 : prng.below(3)) {
      case 0:
        if (value.size() < cap) value.insert(value.begin() + static_cast<long>(at), byte);
        break;
      case 1:
        value.erase(std::min(at, value.size() - 1), 1);
        break;
      default:
        value[std::min(at, value.size() - 1)] = byte;
        break;
    }
  }
  // proto3 `string` must be UTF-8 or the message does not parse: keep it ASCII.
  if (f->type() == pb::FieldDescriptor::TYPE_STRING) {
    for (char& c : value) c = static_cast<char>(static_cast<unsigned char>(c) & 0x7f);
  }
  WSIM_ASSERT_LE(value.size(), cap);
  return value;
}

void ProtoMutator::randomize(pb::Message& message, int depth, Xoshiro256& prng) const {
  WSIM_ASSERT_LE(depth, kDepthMax);
  const pb::Descriptor* d = message.GetDescriptor();
  const pb::Reflection* r = message.GetReflection();
  for (int k = 0; k < d->field_count(); ++k) {
    const pb::FieldDescriptor* f = d->field(k);
    if (!allowed(f) || f->is_repeated() || f->containing_oneof() != nullptr) continue;
    if (f->cpp_type() != Cpp::CPPTYPE_MESSAGE) {
      mutate_scalar(message, f, -1, prng);
    } else if (depth < kDepthMax && prng.below(2) == 0) {
      randomize(*r->MutableMessage(&message, f), depth + 1, prng);
    }
  }
}

void ProtoMutator::add_element(pb::Message& m, const pb::FieldDescriptor* f,
                               Xoshiro256& prng) const {
  const pb::Reflection* r = m.GetReflection();
  const int n = r->FieldSize(m, f);
  WSIM_ASSERT_LT(n, hooks_.repeated_max);
  if (f->cpp_type() == Cpp::CPPTYPE_MESSAGE) {
    pb::Message* element = r->AddMessage(&m, f);
    const auto builder = hooks_.builders.find(f->full_name());
    if (builder != hooks_.builders.end()) {
      builder->second(*element, prng);
    } else {
      randomize(*element, 1, prng);
    }
  } else {
    // A default element, then one scalar mutation of it.
    std::unique_ptr<pb::Message> scratch(m.New());
    const pb::Reflection* s = scratch->GetReflection();
    switch (f->cpp_type()) {
      case Cpp::CPPTYPE_STRING:
        s->AddString(scratch.get(), f, "");
        break;
      case Cpp::CPPTYPE_BOOL:
        s->AddBool(scratch.get(), f, false);
        break;
      case Cpp::CPPTYPE_ENUM:
        s->AddEnumValue(scratch.get(), f, f->enum_type()->value(0)->number());
        break;
      case Cpp::CPPTYPE_DOUBLE:
        s->AddDouble(scratch.get(), f, 0);
        break;
      case Cpp::CPPTYPE_FLOAT:
        s->AddFloat(scratch.get(), f, 0);
        break;
      case Cpp::CPPTYPE_INT32:
        s->AddInt32(scratch.get(), f, 0);
        break;
      case Cpp::CPPTYPE_UINT32:
        s->AddUInt32(scratch.get(), f, 0);
        break;
      case Cpp::CPPTYPE_UINT64:
        s->AddUInt64(scratch.get(), f, 0);
        break;
      default:
        s->AddInt64(scratch.get(), f, 0);
        break;
    }
    mutate_scalar(*scratch, f, 0, prng);
    append_value(*scratch, f, 0, m);
  }
  WSIM_ASSERT_EQ(r->FieldSize(m, f), n + 1);
  move_last_to(m, f, static_cast<int>(prng.below(static_cast<std::uint64_t>(n) + 1)));
}

std::size_t ProtoMutator::mutate_bytes(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                       std::uint32_t seed, MutationKind* kind) const {
  WSIM_ASSERT_LE(size, max_size);
  Xoshiro256 prng(seed);
  const std::unique_ptr<pb::Message> input = parse(root_, data, size);
  for (int attempt = 0; attempt < kAttemptsMax; ++attempt) {
    std::unique_ptr<pb::Message> candidate(input->New());
    candidate->CopyFrom(*input);
    const MutationKind applied = mutate(*candidate, prng);
    const std::string bytes = serialize(*candidate);
    if (bytes.size() > max_size) continue;
    if (kind != nullptr) *kind = applied;
    return write_out(bytes, data, max_size);
  }
  // Nothing fitted: the input as parsed (canonical, unknown fields dropped: never longer than the
  // input, and an unparsable input becomes the empty message).
  if (kind != nullptr) *kind = MutationKind::kScalar;
  return write_out(serialize(*input), data, max_size);
}

void ProtoMutator::splice(const pb::Message& a, const pb::Message& b, pb::Message& out, int depth,
                          Xoshiro256& prng) const {
  WSIM_ASSERT_LE(depth, kDepthMax);
  WSIM_ASSERT_EQ(a.GetDescriptor(), b.GetDescriptor());
  const pb::Descriptor* d = a.GetDescriptor();
  const pb::Reflection* r = a.GetReflection();
  for (int k = 0; k < d->field_count(); ++k) {
    const pb::FieldDescriptor* f = d->field(k);
    if (!allowed(f)) continue;
    if (f->is_repeated()) {
      // A non-empty prefix of a, then a non-empty suffix of b: the child has elements of both.
      const int na = r->FieldSize(a, f);
      const int nb = r->FieldSize(b, f);
      const int ia = na > 0 ? 1 + static_cast<int>(prng.below(static_cast<std::uint64_t>(na))) : 0;
      const int jb = nb > 0 ? static_cast<int>(prng.below(static_cast<std::uint64_t>(nb))) : 0;
      out.GetReflection()->ClearField(&out, f);
      for (int i = 0; i < ia && i < hooks_.repeated_max; ++i) append_value(a, f, i, out);
      for (int j = jb; j < nb && ia + (j - jb) < hooks_.repeated_max; ++j) {
        append_value(b, f, j, out);
      }
      continue;
    }
    if (f->cpp_type() != Cpp::CPPTYPE_MESSAGE) {
      if (prng.below(2) == 0) copy_singular(b, f, out);
      continue;
    }
    const bool in_a = r->HasField(a, f);
    const bool in_b = r->HasField(b, f);
    if (in_a && in_b && depth < kDepthMax) {
      splice(r->GetMessage(a, f), r->GetMessage(b, f),
             *out.GetReflection()->MutableMessage(&out, f), depth + 1, prng);
    } else if (in_b && prng.below(2) == 0) {
      copy_singular(b, f, out);
    }
  }
}

void ProtoMutator::cross_over(const pb::Message& a, const pb::Message& b, pb::Message& out,
                              Xoshiro256& prng) const {
  WSIM_ASSERT_EQ(a.GetDescriptor(), root_);
  WSIM_ASSERT_EQ(b.GetDescriptor(), root_);
  WSIM_ASSERT_EQ(out.GetDescriptor(), root_);
  out.CopyFrom(a);  // Fields the hooks keep fixed come from the first parent.
  splice(a, b, out, 0, prng);
  if (hooks_.post_process) hooks_.post_process(out);
}

std::size_t ProtoMutator::cross_over_bytes(const std::uint8_t* data1, std::size_t size1,
                                           const std::uint8_t* data2, std::size_t size2,
                                           std::uint8_t* out, std::size_t max_out_size,
                                           std::uint32_t seed) const {
  Xoshiro256 prng(seed);
  const std::unique_ptr<pb::Message> a = parse(root_, data1, size1);
  const std::unique_ptr<pb::Message> b = parse(root_, data2, size2);
  std::unique_ptr<pb::Message> child(a->New());
  for (int attempt = 0; attempt < kAttemptsMax; ++attempt) {
    cross_over(*a, *b, *child, prng);
    const std::string bytes = serialize(*child);
    if (bytes.size() <= max_out_size) return write_out(bytes, out, max_out_size);
  }
  for (const pb::Message* parent : {a.get(), b.get()}) {
    const std::string bytes = serialize(*parent);
    if (bytes.size() <= max_out_size) return write_out(bytes, out, max_out_size);
  }
  return 0;  // The empty message.
}

}  // namespace wsim::fuzz
