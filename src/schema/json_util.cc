#include "schema/json_util.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace mcpsh::schema::detail {
namespace {

// long double holds every int64/uint64/double exactly on the targets we build for
// (x86-64 80-bit extended, aarch64 binary128), so comparisons through it are exact.
long double as_long_double(const rapidjson::Value& v) {
  if (v.IsUint64()) return static_cast<long double>(v.GetUint64());
  if (v.IsInt64()) return static_cast<long double>(v.GetInt64());
  return static_cast<long double>(v.GetDouble());
}

int kind_rank(const rapidjson::Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return 0;
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return 1;
    case rapidjson::kNumberType:
      return 2;
    case rapidjson::kStringType:
      return 3;
    case rapidjson::kArrayType:
      return 4;
    case rapidjson::kObjectType:
      return 5;
  }
  return 6;
}

int compare_strings(const rapidjson::Value& a, const rapidjson::Value& b) {
  int c = as_view(a).compare(as_view(b));
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::vector<const rapidjson::Value::Member*> sorted_members(const rapidjson::Value& o) {
  std::vector<const rapidjson::Value::Member*> out;
  out.reserve(o.MemberCount());
  for (auto it = o.MemberBegin(); it != o.MemberEnd(); ++it) out.push_back(&*it);
  std::sort(out.begin(), out.end(),
            [](auto* x, auto* y) { return compare_strings(x->name, y->name) < 0; });
  return out;
}

// Past the depth cap values compare by address: unequal unless identical, still a
// consistent order for one sort.
int compare_at(const rapidjson::Value& a, const rapidjson::Value& b, int depth) {
  if (&a == &b) return 0;
  int ra = kind_rank(a);
  int rb = kind_rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  if (depth > kMaxCompareDepth) return std::less<const void*>{}(&a, &b) ? -1 : 1;
  switch (ra) {
    case 0:
      return 0;
    case 1:
      return a.GetBool() == b.GetBool() ? 0 : (a.GetBool() ? 1 : -1);
    case 2:
      return compare_numbers(a, b);
    case 3:
      return compare_strings(a, b);
    case 4: {
      rapidjson::SizeType n = std::min(a.Size(), b.Size());
      for (rapidjson::SizeType i = 0; i < n; ++i) {
        if (int c = compare_at(a[i], b[i], depth + 1)) return c;
      }
      return a.Size() == b.Size() ? 0 : (a.Size() < b.Size() ? -1 : 1);
    }
    default: {
      if (a.MemberCount() != b.MemberCount()) return a.MemberCount() < b.MemberCount() ? -1 : 1;
      auto ma = sorted_members(a);
      auto mb = sorted_members(b);
      for (size_t i = 0; i < ma.size(); ++i) {
        if (int c = compare_strings(ma[i]->name, mb[i]->name)) return c;
        if (int c = compare_at(ma[i]->value, mb[i]->value, depth + 1)) return c;
      }
      return 0;
    }
  }
}

bool equal_at(const rapidjson::Value& a, const rapidjson::Value& b, int depth) {
  if (depth > kMaxCompareDepth) return &a == &b;
  if (a.IsNumber() && b.IsNumber()) return compare_numbers(a, b) == 0;
  if (kind_rank(a) != kind_rank(b)) return false;
  if (a.IsArray()) {
    if (a.Size() != b.Size()) return false;
    for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
      if (!equal_at(a[i], b[i], depth + 1)) return false;
    }
    return true;
  }
  if (a.IsObject()) {
    if (a.MemberCount() != b.MemberCount()) return false;
    for (auto it = a.MemberBegin(); it != a.MemberEnd(); ++it) {
      auto other = b.FindMember(it->name);
      if (other == b.MemberEnd() || !equal_at(it->value, other->value, depth + 1)) return false;
    }
    return true;
  }
  if (a.IsString()) return as_view(a) == as_view(b);
  if (a.IsBool()) return a.GetBool() == b.GetBool();
  return true;  // null
}

}  // namespace

bool is_integer(const rapidjson::Value& v) {
  if (!v.IsNumber()) return false;
  if (v.IsInt64() || v.IsUint64()) return true;
  double d = v.GetDouble();
  return std::isfinite(d) && std::floor(d) == d;
}

int compare_numbers(const rapidjson::Value& a, const rapidjson::Value& b) {
  long double x = as_long_double(a);
  long double y = as_long_double(b);
  return x < y ? -1 : (x > y ? 1 : 0);
}

bool is_multiple_of(const rapidjson::Value& x, const rapidjson::Value& m) {
  if ((x.IsInt64() || x.IsUint64()) && (m.IsInt64() || m.IsUint64())) {
    auto magnitude = [](const rapidjson::Value& v) -> uint64_t {
      if (v.IsUint64()) return v.GetUint64();
      int64_t i = v.GetInt64();
      return i < 0 ? uint64_t{0} - static_cast<uint64_t>(i) : static_cast<uint64_t>(i);
    };
    uint64_t divisor = magnitude(m);
    return divisor != 0 && magnitude(x) % divisor == 0;
  }
  double q = x.GetDouble() / m.GetDouble();
  // Overflowing quotient: fmod's remainder is exact, so only a true multiple gives 0.
  if (!std::isfinite(q)) return std::fmod(x.GetDouble(), m.GetDouble()) == 0.0;
  double tolerance = std::max(1e-9, std::fabs(q) * 4 * DBL_EPSILON);
  return std::fabs(q - std::nearbyint(q)) <= tolerance;
}

bool json_equal(const rapidjson::Value& a, const rapidjson::Value& b) { return equal_at(a, b, 0); }

int json_compare(const rapidjson::Value& a, const rapidjson::Value& b) {
  return compare_at(a, b, 0);
}

bool nesting_exceeds(const rapidjson::Value& v, int limit) {
  std::vector<std::pair<const rapidjson::Value*, int>> stack{{&v, 0}};
  while (!stack.empty()) {
    auto [value, depth] = stack.back();
    stack.pop_back();
    if (depth > limit) return true;
    if (value->IsArray()) {
      for (const auto& item : value->GetArray()) stack.emplace_back(&item, depth + 1);
    } else if (value->IsObject()) {
      for (const auto& member : value->GetObject()) stack.emplace_back(&member.value, depth + 1);
    }
  }
  return false;
}

CodePoint next_code_point(std::string_view s, size_t at) {
  constexpr CodePoint kInvalid{0xFFFD, 1};
  auto c = static_cast<unsigned char>(s[at]);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || at + len > s.size()) return kInvalid;
  char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < len; ++k) {
    auto cc = static_cast<unsigned char>(s[at + k]);
    if ((cc & 0xC0) != 0x80) return kInvalid;
    cp = (cp << 6) | (cc & 0x3F);
  }
  return cp > 0x10FFFF ? kInvalid : CodePoint{cp, len};
}

std::u32string decode_utf8(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    CodePoint cp = next_code_point(s, i);
    out.push_back(cp.value);
    i += cp.bytes;
  }
  return out;
}

size_t utf8_length(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); i += next_code_point(s, i).bytes) ++n;
  return n;
}

}  // namespace mcpsh::schema::detail
