// transport::LineFramer: how bytes from stdin become lines.
#include "transport/line_framer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mcpsh::transport {
namespace {

// What a framer delivered: lines as text, oversized lines as "<oversized N>".
struct Collected {
  std::vector<std::string> events;
  void operator()(LineFramer::Event e) {
    events.push_back(e.oversized_size ? "<oversized " + std::to_string(e.oversized_size) + ">"
                                      : std::move(e.line));
  }
};

// Feeds `chunks` one by one, then ends the input.
std::vector<std::string> frame(std::size_t max, const std::vector<std::string>& chunks,
                               bool finish = true) {
  LineFramer framer(max);
  Collected out;
  for (const auto& c : chunks) framer.feed(c, out);
  if (finish) framer.finish(out);
  return out.events;
}

using Lines = std::vector<std::string>;

TEST(LineFramer, SplitsOnNewline) { EXPECT_EQ(frame(100, {"a\nb\n"}), (Lines{"a", "b"})); }

TEST(LineFramer, StripsTheCarriageReturnOfCrlf) {
  EXPECT_EQ(frame(100, {"a\r\nb\r\n"}), (Lines{"a", "b"}));
}

TEST(LineFramer, KeepsACarriageReturnInsideALine) {
  EXPECT_EQ(frame(100, {"a\rb\n"}), (Lines{"a\rb"}));
}

TEST(LineFramer, SkipsBlankLines) { EXPECT_EQ(frame(100, {"a\n\n\n\r\nb\n"}), (Lines{"a", "b"})); }

TEST(LineFramer, SkipsWhitespaceOnlyLines) { EXPECT_EQ(frame(100, {"  \t \n\t\r\n \n"}), Lines{}); }

TEST(LineFramer, KeepsLeadingWhitespaceOfARealLine) {
  EXPECT_EQ(frame(100, {"  {}\n"}), (Lines{"  {}"}));
}

TEST(LineFramer, JoinsALineSplitAcrossReads) {
  EXPECT_EQ(frame(100, {"ab", "c", "d\ne", "f\n"}), (Lines{"abcd", "ef"}));
}

TEST(LineFramer, CrlfSplitBetweenReads) {
  EXPECT_EQ(frame(100, {"ab\r", "\ncd\n"}), (Lines{"ab", "cd"}));
}

TEST(LineFramer, DeliversAFinalLineWithoutNewlineAtEnd) {
  EXPECT_EQ(frame(100, {"a\nlast"}), (Lines{"a", "last"}));
}

TEST(LineFramer, HoldsAnUnfinishedLineUntilTheEnd) {
  EXPECT_EQ(frame(100, {"a\nlast"}, /*finish=*/false), (Lines{"a"}));
}

TEST(LineFramer, FinishOnCleanEndDeliversNothingMore) {
  EXPECT_EQ(frame(100, {"a\n"}), (Lines{"a"}));
}

TEST(LineFramer, LineExactlyAtTheMaximumIsKept) {
  EXPECT_EQ(frame(5, {"hello\nok\n"}), (Lines{"hello", "ok"}));
}

TEST(LineFramer, OversizedLineIsDroppedAndReportedWithItsSize) {
  EXPECT_EQ(frame(4, {"hello\nok\n"}), (Lines{"<oversized 5>", "ok"}));
}

TEST(LineFramer, OversizedLineAcrossReadsReportsItsWholeSize) {
  EXPECT_EQ(frame(4, {"he", "llo wo", "rld", "!\nok\n"}), (Lines{"<oversized 12>", "ok"}));
}

TEST(LineFramer, OversizedFinalLineWithoutNewlineIsReported) {
  EXPECT_EQ(frame(4, {"ok\nhello"}), (Lines{"ok", "<oversized 5>"}));
}

TEST(LineFramer, RecoversAfterAnOversizedLine) {
  EXPECT_EQ(frame(3, {"abcdefgh\nabc\nabcd\nx\n"}),
            (Lines{"<oversized 8>", "abc", "<oversized 4>", "x"}));
}

TEST(LineFramer, ABigLineUnderTheMaximumIsKeptWhole) {
  std::string big(1 << 20, 'x');
  auto lines = frame(2 << 20, {big.substr(0, 1000), big.substr(1000) + "\n"});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].size(), big.size());
}

}  // namespace
}  // namespace mcpsh::transport
