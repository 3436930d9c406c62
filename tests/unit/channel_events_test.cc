// execution::parse_channel_line: the tool side channel (fd 4) as typed events. The bytes
// are the tool's: anything that is not a well-formed event is Malformed or ignored, never
// an error of the host.
#include "execution/channel_events.h"

#include <gtest/gtest.h>

#include <string>

namespace mcpsh::execution {
namespace {

ProgressEvent progress(std::string_view line) {
  auto event = parse_channel_line(line);
  EXPECT_TRUE(event && std::holds_alternative<ProgressEvent>(*event)) << line;
  return event && std::holds_alternative<ProgressEvent>(*event) ? std::get<ProgressEvent>(*event)
                                                                : ProgressEvent{};
}

LogEvent log(std::string_view line) {
  auto event = parse_channel_line(line);
  EXPECT_TRUE(event && std::holds_alternative<LogEvent>(*event)) << line;
  return event && std::holds_alternative<LogEvent>(*event) ? std::get<LogEvent>(*event)
                                                           : LogEvent{};
}

std::string malformed(std::string_view line) {
  auto event = parse_channel_line(line);
  if (!event || !std::holds_alternative<MalformedEvent>(*event)) return "<not malformed>";
  return std::get<MalformedEvent>(*event).why;
}

TEST(ChannelEvents, ProgressWithTotalAndMessage) {
  auto p = progress("progress\t5\t10\thalf way");
  EXPECT_EQ(p.progress, 5);
  ASSERT_TRUE(p.total);
  EXPECT_EQ(*p.total, 10);
  EXPECT_EQ(p.message, "half way");
}

TEST(ChannelEvents, ProgressWithoutTotalOrMessage) {
  auto p = progress("progress\t0.25\t\t");
  EXPECT_EQ(p.progress, 0.25);
  EXPECT_FALSE(p.total);
  EXPECT_EQ(p.message, "");
  auto bare = progress("progress\t3");
  EXPECT_EQ(bare.progress, 3);
  EXPECT_FALSE(bare.total);
}

TEST(ChannelEvents, TabsInTheLastFieldStayInTheMessage) {
  EXPECT_EQ(progress("progress\t1\t2\ta\tb\tc").message, "a\tb\tc");
  EXPECT_EQ(log("log\tinfo\tx\ty").message, "x\ty");
}

TEST(ChannelEvents, ExponentsAndNegativesAreNumbers) {
  EXPECT_EQ(progress("progress\t1e3").progress, 1000);
  EXPECT_EQ(progress("progress\t-2.5").progress, -2.5);
}

TEST(ChannelEvents, MalformedProgressNumbersSayWhy) {
  for (const char* value :
       {"", "x", "5abc", "5 ", " 5", "+5", "0x10", "nan", "inf", "-inf", "1e400", "1,5", "\xff"}) {
    const std::string line = std::string("progress\t") + value + "\t10\tm";
    const std::string why = malformed(line);
    EXPECT_NE(why.find("needs a number"), std::string::npos)
        << "value \"" << value << "\": " << why;
  }
  EXPECT_NE(malformed("progress").find("needs a number"), std::string::npos);
}

TEST(ChannelEvents, AMalformedValueIsQuotedShort) {
  const std::string why = malformed("progress\t" + std::string(10000, 'z'));
  EXPECT_LT(why.size(), 200u) << why;
}

TEST(ChannelEvents, ATotalThatIsNoNumberIsDropped) {
  for (const char* total : {"x", "nan", "inf", "1e400", " 3", "0x10"}) {
    auto p = progress(std::string("progress\t1\t") + total + "\tm");
    EXPECT_FALSE(p.total) << total;
    EXPECT_EQ(p.message, "m");
  }
}

TEST(ChannelEvents, LogLevelAndMessage) {
  auto l = log("log\twarning\tdisk almost full");
  EXPECT_EQ(l.level, "warning");
  EXPECT_EQ(l.message, "disk almost full");
  auto bare = log("log");
  EXPECT_EQ(bare.level, "");
  EXPECT_EQ(bare.message, "");
  EXPECT_EQ(log("log\t\tno level").level, "");
}

TEST(ChannelEvents, EmptyAndUnknownKindsAreIgnored) {
  EXPECT_FALSE(parse_channel_line(""));
  EXPECT_FALSE(parse_channel_line("\t"));
  EXPECT_FALSE(parse_channel_line("Progress\t1"));
  EXPECT_FALSE(parse_channel_line("progress1"));
  EXPECT_FALSE(parse_channel_line("result\t{}"));
  EXPECT_FALSE(parse_channel_line(std::string("progress\0\t1", 11)));
}

TEST(ChannelEvents, BytesAreKeptAsGiven) {
  const std::string raw = "log\tinfo\t\xff\xfe caf\xc3\xa9";
  EXPECT_EQ(log(raw).message, "\xff\xfe caf\xc3\xa9");
}

}  // namespace
}  // namespace mcpsh::execution
