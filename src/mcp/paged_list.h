#pragma once
// One list result (tools, resources, resourceTemplates, prompts) served in pages once it
// passes the page size (server-utilities-pagination.mdx): page 0 is what a request without
// a cursor gets; each page but the last carries nextCursor. Pages are rendered once. The
// cursor is opaque to clients ("page N", base64); one this list cannot have made is
// refused with -32602. Items keep their list order. Immutable; pure.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcp/server_profile.h"

namespace mcpsh::mcp {

class PagedList {
 public:
  // `items_json`: the whole list, a JSON array. `profile` renders the modern results.
  PagedList(std::string_view key, const std::string& items_json, std::size_t page_size,
            const ServerProfileView& profile);

  std::size_t pages() const { return modern_.size(); }
  const std::string& modern(std::size_t page) const { return modern_[page]; }
  const std::string& legacy(std::size_t page) const { return legacy_[page]; }

 private:
  std::vector<std::string> modern_, legacy_;
};

std::string cursor_for_page(std::size_t page);
// The page a cursor names, if it is one of the `pages` pages.
std::optional<std::size_t> page_of_cursor(std::string_view cursor, std::size_t pages);

}  // namespace mcpsh::mcp
