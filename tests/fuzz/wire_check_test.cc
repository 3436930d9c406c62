// The line target's oracle: if it let a bad line through, the fuzzer would report nothing.
#include "wire_check.h"

#include <gtest/gtest.h>

namespace mcpsh::fuzz {
namespace {

TEST(FirstInvalidUtf8, AcceptsEveryWellFormedLength) {
  EXPECT_EQ(first_invalid_utf8("a \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF"),
            std::nullopt);
  EXPECT_EQ(first_invalid_utf8(""), std::nullopt);
}

TEST(FirstInvalidUtf8, FindsEachKindOfIllFormedSequence) {
  EXPECT_EQ(first_invalid_utf8("ab\xFF"), 2u);                    // never a UTF-8 byte
  EXPECT_EQ(first_invalid_utf8("\xC0\x80"), 0u);                  // overlong NUL
  EXPECT_EQ(first_invalid_utf8("\xE0\x80\x80"), 0u);              // overlong 3-byte
  EXPECT_EQ(first_invalid_utf8("x\xED\xB0\x80"), 1u);             // lone low surrogate (CESU)
  EXPECT_EQ(first_invalid_utf8("\xED\xA0\xBD\xED\xB8\x80"), 0u);  // surrogate pair as CESU
  EXPECT_EQ(first_invalid_utf8("\xF4\x90\x80\x80"), 0u);          // above U+10FFFF
  EXPECT_EQ(first_invalid_utf8("\xC3"), 0u);                      // truncated
  EXPECT_EQ(first_invalid_utf8("\xE2\x82x"), 0u);                 // bad continuation
}

TEST(WireLineFault, AcceptsOneJsonObject) {
  EXPECT_EQ(wire_line_fault(R"({"jsonrpc":"2.0","id":1,"result":{"s":"\udc00"}})"), std::nullopt);
}

TEST(WireLineFault, RejectsWhatAClientCouldNotRead) {
  EXPECT_TRUE(wire_line_fault(R"({"a":1} {"b":2})"));            // two documents
  EXPECT_TRUE(wire_line_fault(std::string("{\"a\":1}\0x", 9)));  // NUL ends RapidJSON early
  EXPECT_TRUE(wire_line_fault("{\"a\":\"\n\"}"));                // raw newline
  EXPECT_TRUE(wire_line_fault("{\"a\":\"\x01\"}"));              // raw control character
  EXPECT_TRUE(wire_line_fault("{\"a\":\"\xED\xB0\x80\"}"));      // CESU bytes
  EXPECT_TRUE(wire_line_fault("[1]"));                           // not an object
  EXPECT_TRUE(wire_line_fault("{\"a\":"));                       // truncated
}

}  // namespace
}  // namespace mcpsh::fuzz
