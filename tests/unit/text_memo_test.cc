// mcp::TextMemo: what one build of an Offering made from a text is reused by the next build
// for the same text, and dropped once a build no longer uses it.
#include "mcp/text_memo.h"

#include <gtest/gtest.h>

#include <string>

namespace mcpsh::mcp {
namespace {

TEST(TextMemo, TheSameTextIsMadeOnceAcrossBuilds) {
  TextMemo<std::string> memo;
  int made = 0;
  auto make = [&](const std::string& text) {
    ++made;
    return "made from " + text;
  };
  EXPECT_EQ(memo.get("a", make), "made from a");
  EXPECT_EQ(memo.get("b", make), "made from b");
  EXPECT_EQ(memo.get("a", make), "made from a");  // twice in one build: made once
  memo.sweep();
  EXPECT_EQ(made, 2);
  EXPECT_EQ(memo.made(), 2u);
  EXPECT_EQ(memo.reused(), 1u);

  // The next build: "a" and "b" again, "c" new.
  memo.get("a", make);
  memo.get("b", make);
  EXPECT_EQ(memo.get("c", make), "made from c");
  memo.sweep();
  EXPECT_EQ(made, 3);
  EXPECT_EQ(memo.made(), 1u);
  EXPECT_EQ(memo.reused(), 2u);
}

TEST(TextMemo, ABuildThatDoesNotUseATextDropsIt) {
  TextMemo<std::string> memo;
  int made = 0;
  auto make = [&](const std::string& text) {
    ++made;
    return text;
  };
  memo.get("gone", make);
  memo.get("kept", make);
  memo.sweep();
  memo.get("kept", make);  // a build without "gone": it is forgotten
  memo.sweep();
  ASSERT_EQ(made, 2);
  memo.get("gone", make);  // so it is made again when it comes back
  memo.sweep();
  EXPECT_EQ(made, 3);
  EXPECT_EQ(memo.made(), 1u);
  EXPECT_EQ(memo.reused(), 0u);
}

}  // namespace
}  // namespace mcpsh::mcp
