#include "jsonrpc/json_write.h"

#include <rapidjson/internal/dtoa.h>
#include <rapidjson/internal/itoa.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "jsonrpc/utf8.h"

namespace mcpsh::jsonrpc {

namespace {

constexpr char kHex[] = "0123456789ABCDEF";

// The escape RapidJSON's Writer uses for each byte below 0x80 ('u': \u00XX), 0 if none.
constexpr std::array<char, 0x80> kEscape = [] {
  std::array<char, 0x80> table{};
  for (int c = 0; c < 0x20; ++c) table[c] = 'u';
  table['\b'] = 'b';
  table['\t'] = 't';
  table['\n'] = 'n';
  table['\f'] = 'f';
  table['\r'] = 'r';
  table['"'] = '"';
  table['\\'] = '\\';
  return table;
}();

// True when none of the 8 bytes at p needs attention: no control character, no '"',
// no '\\', nothing >= 0x80. (SWAR: a set high bit in a lane marks a byte that does.)
bool plain_word(const char* p) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  const std::uint64_t below_space = (w - kOnes * 0x20) & ~w;
  const std::uint64_t q = w ^ (kOnes * '"'), b = w ^ (kOnes * '\\');
  const std::uint64_t quote = (q - kOnes) & ~q, backslash = (b - kOnes) & ~b;
  return ((below_space | quote | backslash | w) & kHigh) == 0;
}

void append_number(std::string& out, const rapidjson::Value& v) {
  char buffer[32];
  char* end;
  if (v.IsDouble()) {
    const double d = v.GetDouble();
    if (!std::isfinite(d)) {
      out += "null";
      return;
    }
    end = rapidjson::internal::dtoa(d, buffer);
  } else if (v.IsInt64()) {
    end = rapidjson::internal::i64toa(v.GetInt64(), buffer);
  } else {
    end = rapidjson::internal::u64toa(v.GetUint64(), buffer);
  }
  out.append(buffer, end);
}

std::string_view view(const rapidjson::Value& v) { return {v.GetString(), v.GetStringLength()}; }

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  const char* data = text.data();
  const std::size_t size = text.size();
  std::size_t run = 0, i = 0, bad = 0;
  while (i < size) {
    if (i + 8 <= size && plain_word(data + i)) {
      i += 8;
      continue;
    }
    const auto c = static_cast<unsigned char>(data[i]);
    if (c >= 0x80) {
      const std::size_t n = utf8_sequence_length(text, i, &bad);
      if (n > 0) {
        i += n;
        continue;
      }
      out.append(data + run, i - run);
      out += kReplacementCharacter;
      i += bad;
      run = i;
      continue;
    }
    const char e = kEscape[c];
    if (e == 0) {
      ++i;
      continue;
    }
    out.append(data + run, i - run);
    out += '\\';
    out += e;
    if (e == 'u') {
      out += "00";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
    run = ++i;
  }
  out.append(data + run, size - run);
  out += '"';
}

void append_json(std::string& out, const rapidjson::Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      out += "null";
      return;
    case rapidjson::kFalseType:
      out += "false";
      return;
    case rapidjson::kTrueType:
      out += "true";
      return;
    case rapidjson::kNumberType:
      append_number(out, v);
      return;
    case rapidjson::kStringType:
      append_json_string(out, view(v));
      return;
    case rapidjson::kArrayType: {
      out += '[';
      bool first = true;
      for (const auto& element : v.GetArray()) {
        if (!first) out += ',';
        first = false;
        append_json(out, element);
      }
      out += ']';
      return;
    }
    case rapidjson::kObjectType: {
      out += '{';
      bool first = true;
      for (const auto& member : v.GetObject()) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, view(member.name));
        out += ':';
        append_json(out, member.value);
      }
      out += '}';
      return;
    }
  }
}

std::size_t json_size_estimate(const rapidjson::Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
    case rapidjson::kTrueType:
      return 4;
    case rapidjson::kFalseType:
      return 5;
    case rapidjson::kNumberType:
      return 24;
    case rapidjson::kStringType:
      return v.GetStringLength() + 2;
    case rapidjson::kArrayType: {
      std::size_t n = 2;
      for (const auto& element : v.GetArray()) n += json_size_estimate(element) + 1;
      return n;
    }
    case rapidjson::kObjectType: {
      std::size_t n = 2;
      for (const auto& member : v.GetObject())
        n += member.name.GetStringLength() + 4 + json_size_estimate(member.value);
      return n;
    }
  }
  return 0;
}

}  // namespace mcpsh::jsonrpc
