// mcp text helpers: trimming a tool's output, sizes for people.
#include "mcp/text.h"

#include <gtest/gtest.h>

#include <string>

namespace mcpsh::mcp {
namespace {

TEST(TrimTrailingNewlines, RemovesAllTrailingNewlines) {
  EXPECT_EQ(trim_trailing_newlines("a\n\n\n"), "a");
  EXPECT_EQ(trim_trailing_newlines("a"), "a");
  EXPECT_EQ(trim_trailing_newlines(""), "");
  EXPECT_EQ(trim_trailing_newlines("\n\n"), "");
}

TEST(TrimTrailingNewlines, KeepsCarriageReturnLikeTheShell) {
  // $(printf 'a\r\n') is "a\r": only '\n' is trimmed.
  EXPECT_EQ(trim_trailing_newlines("a\r\n"), "a\r");
  EXPECT_EQ(trim_trailing_newlines("a\r"), "a\r");
}

TEST(TrimTrailingNewlines, KeepsInnerBlankLinesAndOtherWhitespace) {
  EXPECT_EQ(trim_trailing_newlines("line 1\n\nline 3\n\n\n"), "line 1\n\nline 3");
  EXPECT_EQ(trim_trailing_newlines("\n\nlead\n"), "\n\nlead");
  EXPECT_EQ(trim_trailing_newlines("tail  \n"), "tail  ");
}

TEST(HumanBytes, ReadableUnits) {
  EXPECT_EQ(human_bytes(1), "1 byte");
  EXPECT_EQ(human_bytes(312), "312 bytes");
  EXPECT_EQ(human_bytes(1536), "1.5 KiB");
  EXPECT_EQ(human_bytes(3u << 20), "3.0 MiB");
}

}  // namespace
}  // namespace mcpsh::mcp
