// mcp::PagedList and the cursors: long lists come in pages that chain through nextCursor.
#include "mcp/paged_list.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

#include "mcp/function_results.h"
#include "mcp/subscriptions.h"

namespace mcpsh::mcp {
namespace {

rapidjson::Document parsed(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str(), json.size());
  EXPECT_FALSE(d.HasParseError()) << json;
  return d;
}

TEST(PagedList, AShortListIsOnePageWithoutCursor) {
  ServerProfileView profile(std::nullopt);
  PagedList list("prompts", R"([{"name":"a"},{"name":"b"}])", 2, profile);
  ASSERT_EQ(list.pages(), 1u);
  auto modern = parsed(list.modern(0));
  EXPECT_EQ(modern["prompts"].Size(), 2u);
  EXPECT_FALSE(modern.HasMember("nextCursor"));
  EXPECT_TRUE(modern.HasMember("ttlMs"));
  EXPECT_EQ(list.legacy(0), R"({"prompts":[{"name":"a"},{"name":"b"}]})");
}

TEST(PagedList, PagesChainThroughTheirCursorsInOrder) {
  ServerProfileView profile(std::nullopt);
  PagedList list("tools", R"([{"name":"1"},{"name":"2"},{"name":"3"},{"name":"4"},{"name":"5"}])",
                 2, profile);
  ASSERT_EQ(list.pages(), 3u);
  std::string seen;
  std::size_t page = 0;
  for (int guard = 0; guard < 10; ++guard) {
    for (const char* era : {"modern", "legacy"}) {
      auto d = parsed(std::string(era) == "modern" ? list.modern(page) : list.legacy(page));
      if (std::string(era) == "modern")
        for (const auto& t : d["tools"].GetArray()) seen += t["name"].GetString();
      if (!d.HasMember("nextCursor")) {
        EXPECT_EQ(page, 2u);
        continue;
      }
      auto next = page_of_cursor(d["nextCursor"].GetString(), list.pages());
      ASSERT_TRUE(next);
      EXPECT_EQ(*next, page + 1);
    }
    auto d = parsed(list.modern(page));
    if (!d.HasMember("nextCursor")) break;
    page = *page_of_cursor(d["nextCursor"].GetString(), list.pages());
  }
  EXPECT_EQ(seen, "12345");
}

TEST(PagedList, CursorsNotMadeHereAreRefused) {
  EXPECT_EQ(page_of_cursor(cursor_for_page(1), 3), std::optional<std::size_t>(1));
  EXPECT_FALSE(page_of_cursor(cursor_for_page(3), 3));  // past the last page
  EXPECT_FALSE(page_of_cursor("", 3));
  EXPECT_FALSE(page_of_cursor("not base64!", 3));
  EXPECT_FALSE(page_of_cursor("cGFnZSAx", 0));      // "page 1" of a one-page... no pages
  EXPECT_FALSE(page_of_cursor("cGFnZSAteA==", 3));  // "page -x"
}

TEST(ListenFilter, ReadsTheDocumentedFieldsAndRefusesOtherTypes) {
  auto f = read_listen_filter(nullptr);
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->tools);
  auto d = parsed(R"({"toolsListChanged":true,"resourceSubscriptions":["a://b","c://d"]})");
  f = read_listen_filter(&d);
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->tools);
  EXPECT_FALSE(f->prompts);
  EXPECT_EQ(f->uris.size(), 2u);
  for (const char* bad : {R"({"toolsListChanged":1})", R"({"resourceSubscriptions":"a://b"})",
                          R"({"resourceSubscriptions":[1]})", "[]"}) {
    auto b = parsed(bad);
    EXPECT_FALSE(read_listen_filter(&b)) << bad;
  }
}

TEST(CompletionAnswer, AtMostAHundredValuesWithTotalAndHasMore) {
  execution::Outcome o;
  o.ending = execution::Ending::kExited;
  for (int i = 0; i < 150; ++i) o.stdout_head += "v" + std::to_string(i) + "\n\n";
  o.stdout_total = o.stdout_head.size();
  execution::Limits limits;
  auto a = completion_answer("complete_x", o, limits);
  ASSERT_TRUE(a.ok);
  const auto& c = a.result["completion"];
  EXPECT_EQ(c["values"].Size(), 100u);
  EXPECT_EQ(c["total"].GetUint64(), 150u);
  EXPECT_TRUE(c["hasMore"].GetBool());
  EXPECT_STREQ(c["values"][0].GetString(), "v0");
}

TEST(CompletionAnswer, AFailingCompleterIsAnErrorWithItsText) {
  execution::Outcome o;
  o.ending = execution::Ending::kExited;
  o.exit_code = 2;
  o.stdout_head = "no such folder\n";
  auto a = completion_answer("complete_x", o, execution::Limits{});
  EXPECT_FALSE(a.ok);
  EXPECT_EQ(a.code, -32603);
  EXPECT_EQ(a.message, "no such folder");
}

TEST(ReadAnswer, BytesThatAreNotTextBecomeABlob) {
  execution::Outcome o;
  o.ending = execution::Ending::kExited;
  o.stdout_head = std::string("\x89PNG\0\x01", 6);
  o.stdout_total = o.stdout_head.size();
  auto a = read_answer("resource_x", o, {}, execution::Limits{}, "x://y", "image/png");
  ASSERT_TRUE(a.ok);
  EXPECT_STREQ(a.result["contents"][0]["blob"].GetString(), "iVBORwAB");
  o.stdout_head = "plain text\n";
  a = read_answer("resource_x", o, {}, execution::Limits{}, "x://y", "");
  ASSERT_TRUE(a.ok);
  EXPECT_STREQ(a.result["contents"][0]["text"].GetString(), "plain text\n");
  EXPECT_FALSE(a.result["contents"][0].HasMember("mimeType"));
}

}  // namespace
}  // namespace mcpsh::mcp
