#pragma once
// Reading the manifests given with -f: files, folders of *.yaml/*.yml/*.json, or "-" for standard input.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/field_error.hpp"
#include "core/json.hpp"
#include "core/yaml.hpp"

namespace cfo::cmd {

/// One object of an input file, with where it came from for messages.
struct InputDocument {
  std::string file;               ///< the path as given, or "<stdin>"
  std::size_t index = 0;          ///< 0-based document index within the file
  std::vector<std::size_t> item;  ///< for an object taken out of a v1 List: its 0-based position in `items`, one
                                  ///< entry per level of nesting (a List inside a List); empty otherwise
  bool whole_file = false;        ///< true for the entry that stands for a file whose YAML does not parse
  /// For a whole-file entry: where the parser stopped (the error's line and column), for -o json's line and column;
  /// nullopt when the error has no place (a text beyond the size limit).
  std::optional<yaml::Position> syntax_error_at;
  /// Which of the paths given to read_inputs it came from (0-based): a folder's files share their folder's.
  std::size_t source = 0;
  /// True for a document of a kustomize file (kustomization.yaml, kustomization.yml, Kustomization): it describes a
  /// build for `kubectl apply -k`, not an object, and is reported as skipped whatever it holds.
  bool kustomize = false;
  /// The text of the file (shared by its documents) and where this document begins in it (its line's byte offset and
  /// the line, 1-based), for the line and column of findings (yaml::locate); null for a JSON file read whole.
  std::shared_ptr<const std::string> text;
  yaml::DocumentStart start;
  /// The block `doc` lives in (json::compact_copy): a document sized to its object, not RapidJSON's 64 KiB default, so
  /// that a file of many small objects is held in about its own size. Declared before `doc`, which uses it.
  std::unique_ptr<json::Pool> pool;
  json::Document doc;  ///< the object (null when `whole_file`)
  /// Problems found while reading, before any check: a YAML syntax error (the whole file), a List item that is not
  /// an object, a List whose `items` is not a list. When set, these are the entry's findings and `doc` is not judged.
  FieldErrors problems;
};

/// Where an entry sits in its file, for messages: "document 2", "document 2, item 1", "document 2, item 1.0" (a List
/// inside a List), or "whole file". Indexes are 0-based, as in the JSON output.
std::string position(const InputDocument& in);

/// The entries of one file's text, named `name`: one per YAML document, except that a list is replaced by its items,
/// recursively, as `kubectl apply` does: a `v1 List` (what `kubectl get -o yaml` prints) or a typed list (a kind
/// ending in "List" with an `items` list, e.g. ray.io/v1 RayClusterList). A text that does not parse (syntax error,
/// duplicate key...) gives one `whole_file` entry with a "yaml:syntax" problem that carries the parser's message (line
/// and column). A text of 1 MiB or more is cut at document markers (yaml::split_documents) and its parts converted on
/// every core (up to 8), with the same entries, indexes and places as one conversion gives; the limit on copies made
/// by aliases (yaml::kMaxAliasNodes) then holds per part.
std::vector<InputDocument> documents_of_text(const std::string& name, std::string_view text);
/// The same for a text already shared: its documents keep `text` (no copy of it is made).
std::vector<InputDocument> documents_of_text(const std::string& name, const std::shared_ptr<const std::string>& text);

/// What read_inputs does with a file whose YAML does not parse.
enum class OnYamlError {
  kFail,     ///< the whole read fails, with the parser's message prefixed by the file name (--crds)
  kAsEntry,  ///< the file becomes one `whole_file` entry with a "yaml:syntax" problem (the manifests of -f)
};

/// How read_inputs reads folders and files, as `kubectl apply -f` does.
struct ReadOptions {
  OnYamlError on_yaml_error = OnYamlError::kFail;
  /// Folders are read with their sub-folders (kubectl -R, --recursive); otherwise only their own files.
  bool recursive = false;
};

/// What read_inputs found.
struct Inputs {
  std::vector<InputDocument> docs;
  /// Files of a folder that were not read: not .yaml, .yml or .json.
  std::vector<std::string> skipped_files;
  /// Sub-folders of the folders given that were not read (without ReadOptions::recursive).
  std::vector<std::string> unread_folders;
  /// Inputs that hold no object at all (an empty file, comments only, `---` only).
  std::vector<std::string> empty_inputs;
  /// Files met again (the same file by device and inode: given twice with -f, or also inside a folder given): read
  /// the first time only, so that their objects are not judged or printed twice.
  std::vector<std::string> repeated_files;
};

/// Reads files, folders and "-" (stdin) as `kubectl apply -f` reads them: a folder gives its .yaml, .yml and .json
/// files in name order (with options.recursive, its sub-folders' too, depth first); a file met again is read once
/// (Inputs::repeated_files). A .json file is parsed with
/// RapidJSON when it is one JSON value; otherwise (and for every other file) through the YAML conversion.
/// Errors: a missing or unreadable path (message "cannot read <path>: <why>"), an unlistable folder, and with
/// OnYamlError::kFail a file whose YAML does not parse.
Result<Inputs> read_inputs(const std::vector<std::string>& paths, ReadOptions options = {});

/// Gives a namespaced object without metadata.namespace the namespace `ns`, as kubectl does with its context's
/// namespace. Objects without a metadata object are left alone (their checks report it).
void ensure_namespace(json::Document& doc, const std::string& ns);

/// Reads a whole file into a string, up to yaml::kMaxStreamBytes (64 MiB). Errors name the path (and the limit).
Result<std::string> read_file(const std::string& path);

}  // namespace cfo::cmd
