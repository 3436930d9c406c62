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

// mcp_task writes "task <TAB> MESSAGE": the call may go on as a task, with that status.
TEST(ChannelEvents, TaskLines) {
  auto task = [](std::string_view line) {
    auto event = parse_channel_line(line);
    EXPECT_TRUE(event && std::holds_alternative<TaskEvent>(*event)) << line;
    return event && std::holds_alternative<TaskEvent>(*event) ? std::get<TaskEvent>(*event).message
                                                              : std::string("<not a task>");
  };
  EXPECT_EQ(task("task\tcopying the files"), "copying the files");
  EXPECT_EQ(task("task\t"), "");
  EXPECT_EQ(task("task"), "");
  EXPECT_EQ(task("task\ta\tb"), "a\tb");
  EXPECT_EQ(task("task\t\xff caf\xc3\xa9"), "\xff caf\xc3\xa9");
  EXPECT_FALSE(parse_channel_line("tasks\tx"));
  EXPECT_FALSE(parse_channel_line("Task\tx"));
  EXPECT_FALSE(is_content_line("task\tx"));
}

TEST(ChannelEvents, BytesAreKeptAsGiven) {
  const std::string raw = "log\tinfo\t\xff\xfe caf\xc3\xa9";
  EXPECT_EQ(log(raw).message, "\xff\xfe caf\xc3\xa9");
}

ContentEvent content(std::string_view line) {
  auto event = parse_channel_line(line);
  EXPECT_TRUE(event && std::holds_alternative<ContentEvent>(*event)) << line;
  return event && std::holds_alternative<ContentEvent>(*event) ? std::get<ContentEvent>(*event)
                                                               : ContentEvent{};
}

TEST(ChannelEvents, ImageAndAudioLines) {
  auto image = content("image\timage/png\t\tAAH//w==");
  EXPECT_EQ(image.kind, ContentKind::kImage);
  EXPECT_EQ(image.mime, "image/png");
  ASSERT_TRUE(image.base64);
  EXPECT_EQ(*image.base64, "AAH//w==");
  EXPECT_EQ(image.decoded_size(), 4u);
  EXPECT_TRUE(image.annotations.empty());
  auto audio = content("audio\taudio/wav\t\t");
  EXPECT_EQ(audio.kind, ContentKind::kAudio);
  EXPECT_EQ(audio.decoded_size(), 0u) << "an empty file is an empty payload";
}

TEST(ChannelEvents, ResourceAndLinkLines) {
  auto r = content("resource\tfile:///a.txt\ttext/plain\t\taGk=");
  EXPECT_EQ(r.kind, ContentKind::kResource);
  EXPECT_EQ(r.uri, "file:///a.txt");
  EXPECT_EQ(*r.base64, "aGk=");
  auto link = content("resource_link\tfile:///b\t\t\t\tsome\tdescription");
  EXPECT_EQ(link.kind, ContentKind::kResourceLink);
  EXPECT_EQ(link.name, "file:///b") << "the name defaults to the URI";
  EXPECT_EQ(link.description, "some\tdescription");
  EXPECT_FALSE(link.base64);
}

TEST(ChannelEvents, MalformedContentLinesSayWhy) {
  EXPECT_EQ(malformed("image\timage/png\t\tnot base64!"), "mcp_image: the payload is not base64");
  EXPECT_EQ(malformed("image\timage/png\t\tAAA"), "mcp_image: the payload is not base64");
  EXPECT_EQ(malformed("image\t\t\tAAAA"),
            "mcp_image: no MIME type given and none could be derived");
  EXPECT_EQ(malformed("audio\tnot a type\t\tAAAA"), "mcp_audio: \"not a type\" is not a MIME type");
  EXPECT_EQ(malformed("resource\t\ttext/plain\t\tAAAA"), "mcp_resource needs a URI");
  EXPECT_EQ(malformed("resource_link\tx"), "mcp_resource_link: malformed side-channel line");
}

TEST(ChannelEvents, Annotations) {
  auto a = content("image\timage/png\taudience=user,assistant;priority=0.25;lastModified=T;\t");
  EXPECT_EQ(a.annotations.audience, (std::vector<std::string>{"user", "assistant"}));
  EXPECT_EQ(a.annotations.priority, 0.25);
  EXPECT_EQ(a.annotations.last_modified, "T");
  EXPECT_EQ(a.annotations_problem, "");
  for (const char* bad : {"priority=1.5", "priority=x", "audience=robot",
                          "audience=", "lastModified=", "colour=red"}) {
    auto b = content(std::string("image\timage/png\t") + bad + "\t");
    EXPECT_TRUE(b.annotations.empty()) << bad;
    EXPECT_NE(b.annotations_problem, "") << bad;
  }
}

TEST(ChannelEvents, ContentLinesAreKnownByTheirKind) {
  EXPECT_TRUE(is_content_line("image\tx"));
  EXPECT_TRUE(is_content_line("resource_link\t"));
  EXPECT_FALSE(is_content_line("image"));
  EXPECT_FALSE(is_content_line("progress\t1"));
  EXPECT_FALSE(is_content_line("images\tx"));
}

TEST(ChannelEvents, TooLargeLines) {
  auto event = parse_channel_line("too_large\t123456\timage");
  ASSERT_TRUE(event && std::holds_alternative<OversizedContentEvent>(*event));
  EXPECT_EQ(std::get<OversizedContentEvent>(*event).bytes, 123456u);
  EXPECT_EQ(std::get<OversizedContentEvent>(*event).kind, "image");
}

}  // namespace
}  // namespace mcpsh::execution
