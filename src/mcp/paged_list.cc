#include "mcp/paged_list.h"

#include <rapidjson/document.h>

#include <charconv>

#include "jsonrpc/json_write.h"
#include "jsonrpc/response.h"
#include "mcp/base64.h"

namespace mcpsh::mcp {

namespace {
constexpr std::string_view kCursorPrefix = "page ";

// `result` (a JSON object text ending in '}') with "nextCursor" added.
std::string with_cursor(std::string result, std::size_t next_page) {
  std::string field = ",\"nextCursor\":";
  jsonrpc::append_json_string(field, cursor_for_page(next_page));
  result.insert(result.size() - 1, field);
  return result;
}
}  // namespace

std::string cursor_for_page(std::size_t page) {
  return encode_base64(std::string(kCursorPrefix) + std::to_string(page));
}

std::optional<std::size_t> page_of_cursor(std::string_view cursor, std::size_t pages) {
  auto text = decode_base64(cursor);
  if (!text || text->rfind(kCursorPrefix, 0) != 0) return std::nullopt;
  std::size_t page = 0;
  const char* begin = text->data() + kCursorPrefix.size();
  const char* end = text->data() + text->size();
  auto [at, ec] = std::from_chars(begin, end, page);
  if (ec != std::errc() || at != end || begin == end || page >= pages) return std::nullopt;
  return page;
}

PagedList::PagedList(std::string_view key, const std::string& items_json, std::size_t page_size,
                     const ServerProfileView& profile) {
  rapidjson::Document items;
  items.Parse(items_json.c_str(), items_json.size());
  const std::size_t count = items.IsArray() ? items.Size() : 0;
  if (page_size == 0 || count <= page_size) {
    modern_.push_back(profile.list_result_json(key, items_json));
    legacy_.push_back(ServerProfileView::legacy_list_result_json(key, items_json));
    return;
  }
  for (std::size_t first = 0; first < count; first += page_size) {
    std::string page = "[";
    for (std::size_t i = first; i < std::min(count, first + page_size); ++i) {
      if (i > first) page += ',';
      page += jsonrpc::to_json(items[static_cast<rapidjson::SizeType>(i)]);
    }
    page += ']';
    std::string modern = profile.list_result_json(key, page);
    std::string legacy = ServerProfileView::legacy_list_result_json(key, page);
    if (first + page_size < count) {
      const std::size_t next = first / page_size + 1;
      modern = with_cursor(std::move(modern), next);
      legacy = with_cursor(std::move(legacy), next);
    }
    modern_.push_back(std::move(modern));
    legacy_.push_back(std::move(legacy));
  }
}

}  // namespace mcpsh::mcp
