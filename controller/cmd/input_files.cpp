#include "cmd/input_files.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <optional>
#include <set>

#include <sys/stat.h>

#include "core/parallel.hpp"
#include "core/read_file.hpp"
#include "core/yaml.hpp"

namespace cfo::cmd {

namespace fs = std::filesystem;

Result<std::string> read_file(const std::string& path) { return cfo::read_file(path, yaml::kMaxStreamBytes); }

std::string position(const InputDocument& in) {
  if (in.whole_file) return "whole file";
  std::string out = "document " + std::to_string(in.index);
  for (std::size_t level = 0; level < in.item.size(); ++level) {
    out += level == 0 ? ", item " : ".";
    out += std::to_string(in.item[level]);
  }
  return out;
}

namespace {

// A list kubectl flattens: v1 List (`kubectl get -o yaml`), or a typed list such as ray.io/v1 RayClusterList (an API
// list response), recognised as kubectl does by its kind ending in "List" with an `items` list.
bool is_list(const json::Value& v) {
  if (!v.IsObject()) return false;
  const std::string kind = json::get_string(v, "kind").value_or("");
  if (json::get_string(v, "apiVersion") == "v1" && kind == "List") return true;
  const json::Value* items = json::find(v, "items");
  return kind.size() > 4 && kind.ends_with("List") && items && items->IsArray();
}

// Adds `value` (found at `index` / `item` of `file`) to `out`: as it is, or, for a v1 List, each of its items in turn.
void add_value(const std::string& file, std::size_t index, const std::vector<std::size_t>& item,
               const json::Value& value, std::vector<InputDocument>& out) {
  InputDocument entry;
  entry.file = file;
  entry.index = index;
  entry.item = item;
  if (!is_list(value)) {
    entry.doc = json::compact_copy(value, entry.pool);
    if (!item.empty() && !value.IsObject())
      entry.problems.push_back(
          {"", "list:itemNotAnObject", "kubectl",
           std::string("an item of a v1 List must be an object (a map), found ") + json::type_name(value)});
    out.push_back(std::move(entry));
    return;
  }
  const json::Value* items = json::find(value, "items");
  if (items == nullptr || items->IsNull()) return;  // an empty List holds no object
  if (!items->IsArray()) {
    entry.doc.CopyFrom(value, entry.doc.GetAllocator());
    entry.problems.push_back({"items", "list:items", "kubectl",
                              std::string("the items of a v1 List must be a list, found ") + json::type_name(*items)});
    out.push_back(std::move(entry));
    return;
  }
  for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
    auto inner = item;
    inner.push_back(i);
    add_value(file, index, inner, (*items)[i], out);
  }
}

}  // namespace

std::vector<InputDocument> documents_of_text(const std::string& name, std::string_view text) {
  return documents_of_text(name, std::make_shared<const std::string>(text));
}

namespace {

// Streams from this size on are converted in parallel, in kPartsPerThread parts per core (yaml::split_documents).
constexpr std::size_t kParallelConversionFrom = std::size_t{1} << 20;
constexpr std::size_t kMaxConversionThreads = 8;
constexpr std::size_t kPartsPerThread = 16;  // parts of a large stream per conversion thread (convert_in_parallel)

// The entries of the documents of `part` (the text from `begin`, whose first line is `first_line`) of a file's
// `text`, their index counted from 0 within the part and their start placed in the whole text; `documents` gets the
// number of (non-empty) documents. An error as yaml::for_each_document's.
Result<void> convert_part(const std::string& name, const std::shared_ptr<const std::string>& text,
                          std::string_view part, const yaml::TextPart& begin, std::vector<InputDocument>& out,
                          std::size_t& documents, std::atomic<std::size_t>* stream_alias_nodes = nullptr) {
  // Each document is kept in a block sized to it as soon as it is converted (yaml::for_each_document), so that a
  // file of many small objects is never held at RapidJSON's 64 KiB a document.
  documents = 0;
  return yaml::for_each_document(
      part,
      [&](json::Document& d, const yaml::DocumentStart& start) {
        const std::size_t i = documents++;
        const std::size_t first = out.size();
        if (is_list(d)) {
          add_value(name, i, {}, d, out);
        } else {
          InputDocument entry;
          entry.file = name;
          entry.index = i;
          entry.doc = json::compact_copy(d, entry.pool);
          out.push_back(std::move(entry));
        }
        for (std::size_t k = first; k < out.size(); ++k) {
          out[k].text = text;
          out[k].start = yaml::DocumentStart{start.line_offset + begin.offset, start.line + begin.line - 1};
        }
      },
      stream_alias_nodes);
}

// The entries of a large stream converted in parts on every core (for_each_index_in_parallel), in order; nullopt when
// it is not split (one part) or a part does not convert (the serial conversion then gives the error with its place in
// the whole text).
std::optional<std::vector<InputDocument>> convert_in_parallel(const std::string& name,
                                                              const std::shared_ptr<const std::string>& text) {
  const std::size_t cores = worker_threads(kMaxConversionThreads);
  if (text->size() < kParallelConversionFrom || text->size() > yaml::kMaxStreamBytes || cores < 2) return std::nullopt;
  // More parts than threads, taken in turn: equal byte counts are not equal work (a part may hold Lists, long
  // scalars, or share its core with the thread that loads the schemas), and a thread that ends early takes the next.
  const std::vector<yaml::TextPart> parts = yaml::split_documents(*text, cores * kPartsPerThread);
  if (parts.size() < 2) return std::nullopt;
  struct Converted {
    std::vector<InputDocument> entries;
    std::size_t documents = 0;
    bool ok = false;
  };
  std::vector<Converted> converted(parts.size());
  std::atomic<std::size_t> alias_nodes{0};  // kMaxAliasNodes is a limit of the file, not of a part
  for_each_index_in_parallel(parts.size(), cores, [&](std::size_t p) {
    const std::size_t end = p + 1 < parts.size() ? parts[p + 1].offset : text->size();
    const std::string_view part = std::string_view(*text).substr(parts[p].offset, end - parts[p].offset);
    converted[p].ok =
        convert_part(name, text, part, parts[p], converted[p].entries, converted[p].documents, &alias_nodes)
            .has_value();
  });
  std::size_t entries = 0;
  for (const auto& c : converted) {
    if (!c.ok) return std::nullopt;
    entries += c.entries.size();
  }
  std::vector<InputDocument> out;
  out.reserve(entries);
  std::size_t documents_before = 0;
  for (auto& c : converted) {
    for (auto& e : c.entries) {
      e.index += documents_before;
      out.push_back(std::move(e));
    }
    documents_before += c.documents;
  }
  return out;
}

}  // namespace

std::vector<InputDocument> documents_of_text(const std::string& name,
                                             const std::shared_ptr<const std::string>& shared_text) {
  if (auto parallel = convert_in_parallel(name, shared_text)) return std::move(*parallel);
  std::vector<InputDocument> out;
  std::size_t documents = 0;
  auto read = convert_part(name, shared_text, *shared_text, yaml::TextPart{}, out, documents);
  if (!read) {
    out.clear();  // a file that does not parse is one finding, whatever came before the error
    InputDocument entry;
    entry.file = name;
    entry.whole_file = true;
    if (read.error().line) entry.syntax_error_at = yaml::Position{read.error().line, read.error().column};
    if (read.error().reason == yaml::kLimitReason)  // the thirty-seventh user trial: told as a syntax error
      entry.problems.push_back(
          {"", "yaml:limit", "yaml", "the file is beyond a limit of the YAML reader: " + read.error().message});
    else
      entry.problems.push_back({"", "yaml:syntax", "yaml", "the file is not valid YAML: " + read.error().message});
    out.push_back(std::move(entry));
  }
  return out;
}

void ensure_namespace(json::Document& doc, const std::string& ns) {
  json::Value* meta = json::find(doc, "metadata");
  if (meta && meta->IsObject() && !json::find(*meta, "namespace"))
    json::set(*meta, "namespace", json::str(ns, doc.GetAllocator()), doc.GetAllocator());
}

namespace {

bool is_kustomize_file(const fs::path& p) {
  const std::string name = p.filename().string();
  return name == "kustomization.yaml" || name == "kustomization.yml" || name == "Kustomization";
}

bool has_manifest_extension(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json" || is_kustomize_file(p);
}

// The files of folder `dir` that kubectl reads (recursing with `recursive`, not into symbolic links to folders), in
// name order; the others (and those links) go to out.skipped_files, the sub-folders not read without `recursive` to
// out.unread_folders. A link with a manifest's name that points at nothing is among the files (read_inputs reports it).
Result<std::vector<std::string>> folder_files(const std::string& dir, bool recursive, Inputs& out) {
  std::vector<fs::path> entries;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) entries.push_back(e.path());
  if (ec) return fail("cannot list " + dir + ": " + ec.message());
  std::sort(entries.begin(), entries.end());
  std::vector<std::string> files;
  for (const auto& path : entries) {
    if (fs::is_directory(path, ec)) {
      if (!recursive) {
        out.unread_folders.push_back(path.string());
        continue;
      }
      // As kubectl's -R (filepath.Walk), a link to a folder is not followed: a link back up would never end.
      if (fs::is_symlink(path, ec)) {
        out.skipped_files.push_back(path.string());
        continue;
      }
      auto inner = folder_files(path.string(), true, out);
      if (!inner) return std::unexpected(inner.error());
      files.insert(files.end(), inner->begin(), inner->end());
    } else if (!has_manifest_extension(path)) {
      out.skipped_files.push_back(path.string());
    } else {
      files.push_back(path.string());
    }
  }
  return files;
}

// One JSON value, parsed with RapidJSON (far faster than the YAML route for large files such as the CRD bundle); the
// other texts (and JSON that RapidJSON refuses, e.g. a stream of several values) go through the YAML conversion,
// which also gives line and column for errors.
std::vector<InputDocument> documents_of_file(const std::string& name, std::string&& text) {
  if (name.ends_with(".json")) {
    auto doc = json::parse(text);
    if (doc) {
      std::vector<InputDocument> out;
      if (is_list(*doc)) {
        add_value(name, 0, {}, *doc, out);
      } else {
        InputDocument entry;
        entry.file = name;
        entry.doc = json::compact_copy(*doc, entry.pool);
        out.push_back(std::move(entry));
      }
      return out;
    }
  }
  return documents_of_text(name, std::make_shared<const std::string>(std::move(text)));
}

}  // namespace

Result<Inputs> read_inputs(const std::vector<std::string>& paths, ReadOptions options) {
  Inputs out;
  std::size_t source = 0;
  std::set<std::pair<dev_t, ino_t>> files_read;
  // True the second time `path` (a regular file, told by device and inode) is met. A path that cannot be stat'ed is
  // left to read_file, which names why.
  auto seen_before = [&](const std::string& path) {
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    if (files_read.emplace(st.st_dev, st.st_ino).second) return false;
    out.repeated_files.push_back(path);
    return true;
  };
  auto add = [&](const std::string& name, std::string&& text) -> Result<void> {
    auto docs = documents_of_file(name, std::move(text));
    if (options.on_yaml_error == OnYamlError::kFail && docs.size() == 1 && docs[0].whole_file)
      return fail(name + ": " + docs[0].problems.front().reason);
    if (docs.empty()) out.empty_inputs.push_back(name);
    const bool kustomize = name != "<stdin>" && is_kustomize_file(name);
    for (auto& d : docs) {
      d.kustomize = kustomize;
      d.source = source;
    }
    if (out.docs.empty()) {
      out.docs = std::move(docs);  // the first file: its entries as they are, no second vector
      return {};
    }
    out.docs.reserve(out.docs.size() + docs.size());
    std::move(docs.begin(), docs.end(), std::back_inserter(out.docs));
    return {};
  };
  for (; source < paths.size(); ++source) {
    const std::string& p = paths[source];
    if (p == "-") {
      std::string text;
      char chunk[65536];
      errno = 0;
      while (std::cin.read(chunk, sizeof chunk) || std::cin.gcount() > 0) {
        text.append(chunk, static_cast<std::size_t>(std::cin.gcount()));
        if (text.size() > yaml::kMaxStreamBytes)
          return fail("<stdin>: larger than " + size_text(yaml::kMaxStreamBytes) + " (the limit per file)");
      }
      // std::cin reads through C's stdin (synchronised with stdio), whose error flag tells a read that failed (a
      // closed descriptor: `<&-`) from the end of the input; the first must not pass for an empty input.
      if (const int read_errno = errno; std::ferror(stdin))
        return fail(std::string("<stdin>: cannot read it: ") + (read_errno ? std::strerror(read_errno) : "read error"));
      if (auto r = add("<stdin>", std::move(text)); !r) return std::unexpected(r.error());
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      auto files = folder_files(p, options.recursive, out);
      if (!files) return std::unexpected(files.error());
      for (const auto& f : *files) {
        // A link to nothing is one error finding, and the folder's other files are still judged (the thirty-seventh
        // user trial: it stopped the whole folder, exit 2; the thirty-eighth: a warning let CI pass without it).
        if (fs::is_symlink(f, ec) && !fs::exists(f, ec)) {
          InputDocument entry;
          entry.file = f;
          entry.whole_file = true;
          entry.source = source;
          entry.problems.push_back({"", "file:danglingLink", "file",
                                    "a symbolic link to nothing (" + fs::read_symlink(f, ec).string() + "): not read"});
          out.docs.push_back(std::move(entry));
          continue;
        }
        if (seen_before(f)) continue;
        auto text = read_file(f);
        if (!text) return std::unexpected(text.error());
        if (auto r = add(f, std::move(*text)); !r) return std::unexpected(r.error());
      }
      continue;
    }
    if (seen_before(p)) continue;
    auto text = read_file(p);
    if (!text) return std::unexpected(text.error());
    if (auto r = add(p, std::move(*text)); !r) return std::unexpected(r.error());
  }
  return out;
}

}  // namespace cfo::cmd
