#include "cmd/crd_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/read_file.hpp"

namespace cfo::cmd {

namespace fs = std::filesystem;

namespace {
// Bumped when what an entry holds changes (what is stripped, the layout): older entries then miss.
constexpr int kCacheFormat = 1;
// An entry larger than this is not read (the largest upstream CRD set, stripped, is about 1 MiB).
constexpr std::size_t kMaxEntryBytes = std::size_t{64} << 20;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// FNV-1a, 64 bits: the entry's file name (the key itself is in the entry and compared on read).
uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::string entry_path(const std::string& dir, const std::string& key) {
  char name[40];
  std::snprintf(name, sizeof name, "crds-%016llx.json", static_cast<unsigned long long>(fnv1a(key)));
  return (fs::path(dir) / "crds" / name).string();
}
}  // namespace

std::string crd_cache_dir(const Args& args) {
  if (args.has("cache-dir")) {
    const std::string dir = args.get("cache-dir");
    return dir == "off" ? "" : dir;
  }
  if (const std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty())
    return (fs::path(xdg) / "codeflare-operator").string();
  if (const std::string home = env("HOME"); !home.empty())
    return (fs::path(home) / ".cache" / "codeflare-operator").string();
  return "";
}

std::optional<std::string> crd_cache_key(const std::string& file) {
  std::error_code ec;
  const fs::path canonical = fs::canonical(file, ec);
  if (ec) return std::nullopt;
  struct stat st{};
  if (::stat(canonical.c_str(), &st) != 0) return std::nullopt;
  const long long mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  return "v" + std::to_string(kCacheFormat) + "|" + canonical.string() + "|" + std::to_string(st.st_size) + "|" +
         std::to_string(mtime_ns) + "|" + std::to_string(st.st_ino);
}

std::optional<json::Document> read_crd_cache(const std::string& dir, const std::string& key) {
  if (dir.empty()) return std::nullopt;
  auto text = cfo::read_file(entry_path(dir, key), kMaxEntryBytes);
  if (!text) return std::nullopt;
  auto doc = json::parse(*text);
  if (!doc || !doc->IsObject() || json::get_string(*doc, "key") != key) return std::nullopt;
  json::Value* crds = json::find(*doc, "crds");
  if (!crds || !crds->IsArray()) return std::nullopt;
  // The array becomes the document's root, in place (its values stay in the document's allocator).
  json::Value array;
  array.Swap(*crds);
  static_cast<json::Value&>(*doc).Swap(array);
  return std::move(*doc);
}

bool write_crd_cache(const std::string& dir, const std::string& key, const json::Value& crds) {
  if (dir.empty()) return false;
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "crds", ec);
  if (ec) return false;
  json::Document entry(rapidjson::kObjectType);
  auto& a = entry.GetAllocator();
  entry.AddMember("key", json::str(key, a), a);
  json::Value copy;
  copy.CopyFrom(crds, a);
  entry.AddMember("crds", copy, a);
  const std::string path = entry_path(dir, key);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return false;
    f << json::dump(entry);
    if (!f.flush()) {
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
  return !ec;
}

void strip_descriptions(json::Value& node) {
  if (node.IsArray()) {
    for (auto& item : node.GetArray()) strip_descriptions(item);
    return;
  }
  if (!node.IsObject()) return;
  node.EraseMember("description");  // in place, the members' order kept
  for (auto& m : node.GetObject()) {
    const std::string_view name(m.name.GetString(), m.name.GetStringLength());
    if ((name == "properties" || name == "patternProperties") && m.value.IsObject()) {
      // Its keys are field names, kept whatever they are; their values are schemas again.
      for (auto& field : m.value.GetObject()) strip_descriptions(field.value);
      continue;
    }
    strip_descriptions(m.value);
  }
}

}  // namespace cfo::cmd
