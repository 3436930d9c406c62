// A directory published as resources: what is listed, what is read, and every way out of
// the root that must fail. Each test builds its own tree under /tmp: a "root" to publish
// and, beside it, an "outside" folder holding a secret that no read may return.
#include "resources/resource_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace mcpsh::resources {
namespace {

namespace fs = std::filesystem;
using mcpsh::testing::TempDir;
using Status = DirRead::Status;

constexpr std::uint64_t kMax = 1 << 20;
const std::string kSecret = "the secret outside the root";

std::string status_name(Status s) {
  switch (s) {
    case Status::kNotMine:
      return "kNotMine";
    case Status::kNotFound:
      return "kNotFound";
    case Status::kRefused:
      return "kRefused";
    case Status::kTooLarge:
      return "kTooLarge";
    case Status::kOk:
      return "kOk";
  }
  return "?";
}

// A temporary tree with root/ (published) and outside/secret.txt beside it.
class Tree {
 public:
  Tree() {
    fs::create_directories(root_path());
    tmp_.write("outside/secret.txt", kSecret);
  }
  fs::path root_path() const { return tmp_.path() / "root"; }
  fs::path outside() const { return tmp_.path() / "outside"; }
  void write(const std::string& rel, const std::string& content) const {
    tmp_.write("root/" + rel, content);
  }
  void link(const std::string& rel, const fs::path& target) const {
    fs::create_directories((root_path() / rel).parent_path());
    fs::create_symlink(target, root_path() / rel);
  }
  ResourceDir open() const {
    auto opened = ResourceDir::open(root_path().string());
    if (auto* error = std::get_if<std::string>(&opened)) {
      ADD_FAILURE() << *error;
      std::abort();
    }
    return std::get<ResourceDir>(std::move(opened));
  }
  const TempDir& tmp() const { return tmp_; }

 private:
  TempDir tmp_;
};

std::vector<std::string> names(const std::vector<DirFile>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) out.push_back(f.name);
  return out;
}

// Expects read(uri) to be refused, and in any case never to return the secret.
void expect_refused(const ResourceDir& dir, const std::string& uri) {
  DirRead r = dir.read(uri, kMax);
  EXPECT_EQ(status_name(r.status), "kRefused") << uri << " : " << r.why;
  EXPECT_FALSE(r.why.empty()) << uri;
  EXPECT_EQ(r.bytes.find(kSecret), std::string::npos) << uri;
}

void expect_reads(const ResourceDir& dir, const std::string& uri, const std::string& bytes) {
  DirRead r = dir.read(uri, kMax);
  EXPECT_EQ(status_name(r.status), "kOk") << uri << " : " << r.why;
  EXPECT_EQ(r.bytes, bytes) << uri;
}

// --- open ---

TEST(ResourceDirOpen, MakesTheRootCanonical) {
  Tree t;
  t.write("sub/a.txt", "a");
  fs::create_symlink(t.root_path(), t.tmp().path() / "alias");
  std::string canonical = fs::canonical(t.root_path()).string();
  for (const auto& given : {(t.root_path() / "sub" / "..").string(),
                            (t.tmp().path() / "alias").string(), t.root_path().string() + "/"}) {
    auto opened = ResourceDir::open(given);
    ASSERT_TRUE(std::holds_alternative<ResourceDir>(opened)) << given;
    const auto& dir = std::get<ResourceDir>(opened);
    EXPECT_EQ(dir.root(), canonical) << given;
    EXPECT_EQ(dir.uri_prefix(), "file://" + canonical + "/") << given;
  }
}

TEST(ResourceDirOpen, RefusesWhatIsNotADirectory) {
  Tree t;
  t.write("a.txt", "a");
  ::mkfifo((t.root_path() / "fifo").c_str(), 0600);
  for (const auto& [given, why] : std::vector<std::pair<std::string, std::string>>{
           {(t.root_path() / "missing").string(), "No such file"},
           {(t.root_path() / "a.txt").string(), "not a directory"},
           {(t.root_path() / "fifo").string(), "not a directory"}}) {
    auto opened = ResourceDir::open(given);
    ASSERT_TRUE(std::holds_alternative<std::string>(opened)) << given;
    EXPECT_NE(std::get<std::string>(opened).find(given), std::string::npos);
    EXPECT_NE(std::get<std::string>(opened).find(why), std::string::npos)
        << std::get<std::string>(opened);
  }
}

TEST(ResourceDirOpen, EncodesTheRootInTheUriAndMatchesItDecoded) {
  TempDir tmp;
  tmp.write("my docs/ä.txt", "umlaut");
  auto opened = ResourceDir::open((tmp.path() / "my docs").string());
  ASSERT_TRUE(std::holds_alternative<ResourceDir>(opened));
  const auto& dir = std::get<ResourceDir>(opened);
  std::string base = fs::canonical(tmp.path()).string();
  EXPECT_EQ(dir.uri_prefix(), "file://" + base + "/my%20docs/");
  expect_reads(dir, dir.uri_prefix() + "%C3%A4.txt", "umlaut");
  // A client may encode differently: raw bytes, lower-case hex, an encoded letter.
  expect_reads(dir, "file://" + base + "/my docs/ä.txt", "umlaut");
  expect_reads(dir, "file://" + base + "/my%20doc%73/%c3%a4.txt", "umlaut");
  expect_reads(dir, "FILE://" + base + "/my%20docs/%C3%A4.txt", "umlaut");
}

// --- list ---

TEST(ResourceDirList, ListsNestedFilesSortedWithUriSizeAndMime) {
  Tree t;
  t.write("b.json", "{}");
  t.write("a/x.md", "# x");
  t.write("a b.txt", "spaced");
  t.write("a-c.PNG", "png!");
  t.write("aa", "no extension");
  t.write("a/deeper/z.sh", "echo hi");
  t.write("empty.log", "");
  ResourceDir dir = t.open();
  bool truncated = true;
  auto files = dir.list(100, &truncated);
  EXPECT_FALSE(truncated);
  // Bytewise order of the whole relative path: ' ' < '-' < '/' < 'a'.
  EXPECT_EQ(names(files), (std::vector<std::string>{"a b.txt", "a-c.PNG", "a/deeper/z.sh", "a/x.md",
                                                    "aa", "b.json", "empty.log"}));
  ASSERT_EQ(files.size(), 7u);
  EXPECT_EQ(files[0].uri, dir.uri_prefix() + "a%20b.txt");
  EXPECT_EQ(files[0].mime, "text/plain");
  EXPECT_EQ(files[0].size, 6u);
  EXPECT_EQ(files[1].mime, "image/png");
  EXPECT_EQ(files[2].uri, dir.uri_prefix() + "a/deeper/z.sh");
  EXPECT_EQ(files[2].mime, "application/x-sh");
  EXPECT_EQ(files[3].mime, "text/markdown");
  EXPECT_EQ(files[4].mime, "");
  EXPECT_EQ(files[4].size, 12u);
  EXPECT_EQ(files[5].mime, "application/json");
  EXPECT_EQ(files[6].size, 0u);
}

TEST(ResourceDirList, EveryListedUriReadsBackItsFile) {
  Tree t;
  t.write("ünï côde/naïve résumé.txt", "utf-8 names");
  t.write("100% #1?.txt", "reserved characters");
  t.write("plain.txt", "plain");
  ResourceDir dir = t.open();
  auto files = dir.list(100, nullptr);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].uri, dir.uri_prefix() + "100%25%20%231%3F.txt");
  EXPECT_EQ(files[2].uri,
            dir.uri_prefix() + "%C3%BCn%C3%AF%20c%C3%B4de/na%C3%AFve%20r%C3%A9sum%C3%A9.txt");
  EXPECT_EQ(files[2].name, "ünï côde/naïve résumé.txt");
  for (const auto& f : files) {
    std::ifstream in(t.root_path() / f.name, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    expect_reads(dir, f.uri, content.str());
    EXPECT_EQ(dir.read(f.uri, kMax).mime, "text/plain");
  }
}

TEST(ResourceDirList, LeavesOutWhatIsNotPublished) {
  Tree t;
  t.write("keep.txt", "k");
  t.write(".env", "hidden");
  t.write(".git/config", "hidden folder");
  t.write("sub/.hidden.txt", "hidden");
  t.write("back\\slash.txt", "backslash");
  t.write("bad\xff.txt", "not UTF-8");
  t.write("inner/target.txt", "inside");
  t.link("link-in.txt", t.root_path() / "inner/target.txt");
  t.link("link-out.txt", t.outside() / "secret.txt");
  t.link("link-out-dir", t.outside());
  t.link("link-in-dir", t.root_path() / "inner");
  t.link("link-hidden.txt", t.root_path() / ".env");
  t.link("dangling.txt", t.root_path() / "missing.txt");
  ASSERT_EQ(::mkfifo((t.root_path() / "fifo.txt").c_str(), 0600), 0);
  ResourceDir dir = t.open();
  auto files = dir.list(100, nullptr);
  EXPECT_EQ(names(files),
            (std::vector<std::string>{"inner/target.txt", "keep.txt", "link-in.txt"}));
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[2].size, 6u) << "a symlink is listed with its target's size";
}

TEST(ResourceDirList, StopsAtMaxFilesAndSaysSo) {
  Tree t;
  for (const char* n : {"e.txt", "d/2.txt", "d/1.txt", "b.txt", "c/x/y.txt"}) t.write(n, "x");
  ResourceDir dir = t.open();
  bool truncated = false;
  EXPECT_EQ(names(dir.list(3, &truncated)),
            (std::vector<std::string>{"b.txt", "c/x/y.txt", "d/1.txt"}));
  EXPECT_TRUE(truncated);
  EXPECT_EQ(dir.list(5, &truncated).size(), 5u);
  EXPECT_FALSE(truncated);
  EXPECT_TRUE(dir.list(0, &truncated).empty());
  EXPECT_TRUE(truncated);
}

TEST(ResourceDirList, DescendsAtMostMaxDepthFolders) {
  Tree t;
  std::string deepest;
  for (std::size_t i = 0; i < kMaxDepth; ++i) deepest += "d/";
  t.write(deepest + "in.txt", "at the limit");
  t.write(deepest + "d/out.txt", "one level too deep");
  ResourceDir dir = t.open();
  auto files = dir.list(100, nullptr);
  EXPECT_EQ(names(files), std::vector<std::string>{deepest + "in.txt"});
  expect_reads(dir, dir.uri_prefix() + deepest + "in.txt", "at the limit");
  expect_refused(dir, dir.uri_prefix() + deepest + "d/out.txt");
}

// --- read: the happy paths ---

TEST(ResourceDirRead, ReadsNestedFilesWithTheirMime) {
  Tree t;
  t.write("src/main.c", "int main() {}");
  t.write("img/logo.PNG", std::string("\x89PNG\0\r\n", 7));
  ResourceDir dir = t.open();
  expect_reads(dir, dir.uri_prefix() + "src/main.c", "int main() {}");
  EXPECT_EQ(dir.read(dir.uri_prefix() + "src/main.c", kMax).mime, "");
  DirRead png = dir.read(dir.uri_prefix() + "img/logo.PNG", kMax);
  EXPECT_EQ(status_name(png.status), "kOk");
  EXPECT_EQ(png.bytes, std::string("\x89PNG\0\r\n", 7));
  EXPECT_EQ(png.mime, "image/png");
}

TEST(ResourceDirRead, FollowsSymlinksThatStayInside) {
  Tree t;
  t.write("inner/target.md", "inside");
  t.link("link.txt", "inner/target.md");
  t.link("chain1.txt", "chain2.txt");
  t.link("chain2.txt", t.root_path() / "link.txt");
  t.link("folder", "inner");
  ResourceDir dir = t.open();
  expect_reads(dir, dir.uri_prefix() + "link.txt", "inside");
  EXPECT_EQ(dir.read(dir.uri_prefix() + "link.txt", kMax).mime, "text/plain")
      << "the MIME type comes from the name in the URI";
  expect_reads(dir, dir.uri_prefix() + "chain1.txt", "inside");
  expect_reads(dir, dir.uri_prefix() + "folder/target.md", "inside");
}

TEST(ResourceDirRead, ReadsAFileWithA255ByteName) {
  Tree t;
  std::string name(251, 'n');
  name += ".txt";
  t.write(name, "long");
  ResourceDir dir = t.open();
  expect_reads(dir, dir.uri_prefix() + name, "long");
}

TEST(ResourceDirRead, RefusesFilesOverMaxBytes) {
  Tree t;
  t.write("ten.txt", "0123456789");
  ResourceDir dir = t.open();
  EXPECT_EQ(status_name(dir.read(dir.uri_prefix() + "ten.txt", 10).status), "kOk");
  DirRead r = dir.read(dir.uri_prefix() + "ten.txt", 9);
  EXPECT_EQ(status_name(r.status), "kTooLarge");
  EXPECT_TRUE(r.bytes.empty());
  EXPECT_NE(r.why.find("9 bytes"), std::string::npos) << r.why;
}

TEST(ResourceDirRead, MissingFilesAreNotFound) {
  Tree t;
  t.write("a.txt", "a");
  ResourceDir dir = t.open();
  for (const char* rel : {"missing.txt", "no/such/folder.txt", "a.txt/below", "%252e%252e"}) {
    DirRead r = dir.read(dir.uri_prefix() + rel, kMax);
    EXPECT_EQ(status_name(r.status), "kNotFound") << rel << " : " << r.why;
  }
}

// --- read: URIs that are not ours ---

TEST(ResourceDirRead, OtherUrisAreNotMine) {
  Tree t;
  t.write("a.txt", "a");
  // A sibling whose name extends the root's must not be taken for it.
  t.tmp().write("root2/secret.txt", kSecret);
  ResourceDir dir = t.open();
  std::string sibling = dir.uri_prefix();
  sibling.insert(sibling.size() - 1, "2");
  std::string root_no_slash = dir.uri_prefix().substr(0, dir.uri_prefix().size() - 1);
  for (const auto& uri :
       {std::string("https://example.com/a.txt"), std::string("docs://readme"),
        std::string("file:"), std::string("file://localhost") + dir.root() + "/a.txt",
        std::string("file:///etc/passwd"), sibling + "secret.txt", root_no_slash,
        "file://" + dir.root() + "%2Fa.txt", "file:///x/.." + dir.root() + "/a.txt"}) {
    DirRead r = dir.read(uri, kMax);
    EXPECT_EQ(status_name(r.status), "kNotMine") << uri;
    EXPECT_TRUE(r.bytes.empty()) << uri;
  }
}

// --- read: the escapes ---

TEST(ResourceDirEscape, DotDotInAnySpelling) {
  Tree t;
  t.write("sub/a.txt", "a");
  ResourceDir dir = t.open();
  for (const char* rel :
       {"../outside/secret.txt", "sub/../../outside/secret.txt", "%2e%2e/outside/secret.txt",
        "%2E%2E/outside/secret.txt", "%2e./outside/secret.txt", ".%2E/outside/secret.txt",
        "sub/%2e%2e/a.txt", "./sub/a.txt", "sub/%2E/a.txt", ".."})
    expect_refused(dir, dir.uri_prefix() + rel);
}

TEST(ResourceDirEscape, AbsolutePathsAndEncodedSeparators) {
  Tree t;
  t.write("sub/a.txt", "a");
  ResourceDir dir = t.open();
  std::string secret = (t.outside() / "secret.txt").string();
  for (const std::string& rel : std::vector<std::string>{
           "/etc/passwd", secret, "%2F" + secret.substr(1), "sub%2Fa.txt", "sub%2fa.txt",
           "..%2Foutside%2Fsecret.txt", "sub//a.txt", "sub/a.txt/", "sub/"})
    expect_refused(dir, dir.uri_prefix() + rel);
}

TEST(ResourceDirEscape, NulBackslashAndMalformedEscapes) {
  Tree t;
  t.write("a.txt", "a");
  t.write("back\\slash.txt", "a backslash is refused even when the file exists");
  ResourceDir dir = t.open();
  for (const char* rel :
       {"a.txt%00", "a.txt%00.png", "%00", "..\\outside\\secret.txt", "..%5Coutside%5Csecret.txt",
        "back\\slash.txt", "back%5cslash.txt", "a%2", "a%zz.txt", "%", "a.txt?x=1", "a.txt#top"})
    expect_refused(dir, dir.uri_prefix() + rel);
}

TEST(ResourceDirEscape, HiddenFilesAreNotServedEvenWhenNamed) {
  Tree t;
  t.write(".env", "TOKEN=1");
  t.write(".git/config", "[core]");
  t.link("innocent.txt", ".env");
  ResourceDir dir = t.open();
  for (const char* rel : {".env", ".git/config", "%2Eenv", "innocent.txt"})
    expect_refused(dir, dir.uri_prefix() + rel);
}

TEST(ResourceDirEscape, SymlinksLeadingOutside) {
  Tree t;
  t.link("file-out.txt", t.outside() / "secret.txt");
  t.link("dir-out", t.outside());
  t.link("relative-out.txt", "../outside/secret.txt");
  t.link("chain-a.txt", "chain-b.txt");
  t.link("chain-b.txt", "sub/chain-c.txt");
  t.link("sub/chain-c.txt", "../../outside/secret.txt");
  t.link("root-alias", t.root_path());
  t.link("loop-a", "loop-b");
  t.link("loop-b", "loop-a");
  ResourceDir dir = t.open();
  for (const char* rel : {"file-out.txt", "dir-out/secret.txt", "relative-out.txt", "chain-a.txt",
                          "sub/chain-c.txt", "root-alias", "loop-a"})
    expect_refused(dir, dir.uri_prefix() + rel);
}

TEST(ResourceDirEscape, FifoAndFolderAreRefusedWithoutBlocking) {
  Tree t;
  t.write("sub/a.txt", "a");
  // No writer ever opens the FIFO: a blocking open or read would hang this test.
  ASSERT_EQ(::mkfifo((t.root_path() / "pipe.txt").c_str(), 0600), 0);
  t.link("pipe-link.txt", "pipe.txt");
  ResourceDir dir = t.open();
  for (const char* rel : {"pipe.txt", "pipe-link.txt", "sub"})
    expect_refused(dir, dir.uri_prefix() + rel);
  expect_refused(dir, dir.uri_prefix());
}

TEST(ResourceDirEscape, FileReplacedBySymlinkAfterListing) {
  Tree t;
  t.write("a.txt", "listed");
  t.write("sub/b.txt", "listed too");
  ResourceDir dir = t.open();
  auto files = dir.list(10, nullptr);
  ASSERT_EQ(names(files), (std::vector<std::string>{"a.txt", "sub/b.txt"}));
  fs::remove(t.root_path() / "a.txt");
  fs::create_symlink(t.outside() / "secret.txt", t.root_path() / "a.txt");
  fs::remove_all(t.root_path() / "sub");
  fs::create_symlink(t.outside(), t.root_path() / "sub");
  fs::copy_file(t.outside() / "secret.txt", t.outside() / "b.txt");
  expect_refused(dir, files[0].uri);
  expect_refused(dir, files[1].uri);
}

TEST(ResourceDirEscape, VeryLongNamesAndPaths) {
  Tree t;
  t.write("a.txt", "a");
  ResourceDir dir = t.open();
  expect_refused(dir, dir.uri_prefix() + std::string(256, 'n'));
  expect_refused(dir, dir.uri_prefix() + std::string(300000, 'n'));
  std::string deep;
  for (std::size_t i = 0; i < kMaxDepth + 1; ++i) deep += "d/";
  expect_refused(dir, dir.uri_prefix() + deep + "a.txt");
  std::string many;
  for (int i = 0; i < 100000; ++i) many += "../";
  expect_refused(dir, dir.uri_prefix() + many + "etc/passwd");
}

// --- read_beneath: the tree changes between the check and the open ---

TEST(ReadBeneath, RefusesAFolderSwappedForASymlink) {
  Tree t;
  t.write("sub/b.txt", "inside");
  fs::copy_file(t.outside() / "secret.txt", t.outside() / "b.txt");
  std::string root = fs::canonical(t.root_path()).string();
  DirRead before = read_beneath(root, {"sub", "b.txt"}, kMax);
  ASSERT_EQ(status_name(before.status), "kOk") << before.why;
  EXPECT_EQ(before.bytes, "inside");
  // What read() resolved is now a path through a symlink to outside.
  fs::remove_all(t.root_path() / "sub");
  fs::create_symlink(t.outside(), t.root_path() / "sub");
  DirRead after = read_beneath(root, {"sub", "b.txt"}, kMax);
  EXPECT_EQ(status_name(after.status), "kRefused") << after.why;
  EXPECT_TRUE(after.bytes.empty());
}

TEST(ReadBeneath, RefusesALeafSwappedForASymlinkOrAFifo) {
  Tree t;
  std::string root = fs::canonical(t.root_path()).string();
  t.link("a.txt", t.outside() / "secret.txt");
  ASSERT_EQ(::mkfifo((t.root_path() / "p").c_str(), 0600), 0);
  for (const char* leaf : {"a.txt", "p"}) {
    DirRead r = read_beneath(root, {leaf}, kMax);
    EXPECT_EQ(status_name(r.status), "kRefused") << leaf << " : " << r.why;
    EXPECT_TRUE(r.bytes.empty());
  }
  EXPECT_EQ(status_name(read_beneath(root, {"gone"}, kMax).status), "kNotFound");
}

// --- MIME ---

TEST(MimeForName, UsesTheLastExtensionCaseInsensitively) {
  EXPECT_EQ(mime_for_name("photo.JPG"), "image/jpeg");
  EXPECT_EQ(mime_for_name("dir/archive.tar.gz"), "application/gzip");
  EXPECT_EQ(mime_for_name("notes.Markdown"), "text/markdown");
  EXPECT_EQ(mime_for_name("Makefile"), "");
  EXPECT_EQ(mime_for_name("dir.txt/Makefile"), "");
  EXPECT_EQ(mime_for_name("trailing."), "");
  EXPECT_EQ(mime_for_name("x.unknown"), "");
}

// The tools' helper is a bash `case` in src/execution/tool_launch.cc; its arms look like
//   png|gif|webp) __mcp_m="image/$e" ;;   or   jpg|jpeg) __mcp_m=image/jpeg ;;
TEST(MimeForName, IsTheSameTableAsTheToolsHelper) {
  std::ifstream in(std::string(MCPSH_SOURCE_DIR) + "/src/execution/tool_launch.cc");
  ASSERT_TRUE(in) << "cannot read tool_launch.cc";
  std::string line;
  bool in_helper = false;
  std::set<std::string> helper_extensions;
  const std::regex arm(R"re(^\s*([a-z0-9|]+)\) __mcp_m="?([^" ]+)"? ;;$)re");
  while (std::getline(in, line)) {
    if (line.rfind("__mcp_mime() {", 0) == 0) in_helper = true;
    if (!in_helper) continue;
    if (line.find("esac") != std::string::npos) break;
    std::smatch m;
    if (!std::regex_match(line, m, arm)) continue;
    std::stringstream extensions(m[1].str());
    std::string ext;
    while (std::getline(extensions, ext, '|')) {
      std::string mime = std::regex_replace(m[2].str(), std::regex(R"(\$e)"), ext);
      EXPECT_EQ(mime_for_name("x." + ext), mime) << ext;
      helper_extensions.insert(ext);
    }
  }
  ASSERT_GT(helper_extensions.size(), 20u) << "the helper's case arms were not found";
  std::set<std::string> ours;
  for (const auto& entry : mime_table()) ours.insert(std::string(entry.extension));
  EXPECT_EQ(ours, helper_extensions);
}

}  // namespace
}  // namespace mcpsh::resources
