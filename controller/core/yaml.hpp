#pragma once
// The one place where YAML enters or leaves the project. Everything inside works on JSON (RapidJSON).
#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"

namespace cfo::yaml {

// Size limits of to_json, against hostile or broken input (each exceeded limit is an error naming it). They are far
// above any real manifest: the largest upstream CRD is about 1.4 MB, and the apiserver stores objects of at most
// 1.5 MiB (etcd's request limit).
/// Most bytes of YAML text in one call (one file or one stream).
inline constexpr std::size_t kMaxStreamBytes = 64u << 20;
/// Most bytes of one document (from its first to its last byte, `---` to `---`).
inline constexpr std::size_t kMaxDocumentBytes = 16u << 20;
/// Most bytes of one scalar (after unescaping).
inline constexpr std::size_t kMaxScalarBytes = 4u << 20;
/// Most nodes that alias expansion may copy into one stream ("billion laughs" documents).
inline constexpr std::size_t kMaxAliasNodes = 1000000;
/// Most levels of nested mappings and sequences in one document (a stack guard; a CRD schema nests about 30).
inline constexpr int kMaxDepth = 256;
/// Error::reason of an error that is one of the limits above, not a YAML syntax error.
inline constexpr const char* kLimitReason = "Limit";

/// Converts YAML text (one or more documents separated by `---`) into JSON documents, using LibYAML's event
/// parser. Scalars are resolved as sigs.k8s.io/yaml (go-yaml v2, YAML 1.1) does: plain `true/false/yes/no/on/off`
/// are booleans, plain integers and floats are numbers, `~`/`null`/empty are null; quoted or `!!str`-tagged
/// scalars are strings. Anchors, aliases and `<<` merge keys are expanded, up to kMaxAliasNodes copied nodes per
/// stream (an error beyond, against alias bombs). A key repeated in one mapping is an error. Empty documents are
/// skipped. Time and memory are linear in the size of the text (and of what aliases copy).
/// Errors carry the line and column (1-based) of the offending token or byte, also for invalid UTF-8 and control
/// characters, in their message and in Error::line and Error::column (a repeated key: where its second occurrence is
/// written; a document beyond kMaxDocumentBytes: where it starts; a text beyond kMaxStreamBytes: none, 0); a text,
/// document or scalar beyond kMaxStreamBytes, kMaxDocumentBytes or kMaxScalarBytes is an error naming the limit.
/// Mapping keys must be scalars.
Result<std::vector<json::Document>> to_json(std::string_view text);

/// Where a document begins in its text: the byte offset of the start of the line it begins on, and that line
/// (1-based). locate() on the text from `line_offset` finds the document as document 0.
struct DocumentStart {
  std::size_t line_offset = 0;
  std::size_t line = 1;
};

/// to_json's conversion, one document at a time: `each` gets every non-empty document in order, as soon as it is
/// converted (it may move it away), and where it begins, so that a caller keeping a compact form of each
/// (json::compact_copy) never holds the whole stream's documents at full size. Errors as to_json's; documents before
/// an error were already given.
/// `stream_alias_nodes`: the count of nodes copied by aliases that the parts of one stream converted apart
/// (split_documents) share, so that kMaxAliasNodes holds for the stream and not for each part; null for a whole
/// stream.
Result<void> for_each_document(std::string_view text,
                               const std::function<void(json::Document&, const DocumentStart&)>& each,
                               std::atomic<std::size_t>* stream_alias_nodes = nullptr);

/// Where a part of a YAML stream begins: its byte offset in the stream and its first line (1-based).
struct TextPart {
  std::size_t offset = 0;
  std::size_t line = 1;
};

/// Splits `text` into at most `parts` parts of about equal size at document markers, so that each part can be
/// converted on its own (for_each_document) and the results joined in order give the stream's documents. The first
/// part begins at 0; each other one at a line that begins with `---` followed by a blank, a line break or the end
/// (a line that YAML forbids inside any scalar, so it always starts a document). One part only when `parts` < 2, when
/// no such line is found, or when the text has a directive line (`%` in the first column: it applies to the next
/// document, which a split could separate from it). Linear in the size of the text.
std::vector<TextPart> split_documents(std::string_view text, std::size_t parts);

/// Converts one JSON value into a YAML document (block style, two-space indent, no `---` marker).
/// Strings that would read back as another type (`"true"`, `"1"`, `"null"`) are double-quoted, multi-line
/// strings use literal style, empty objects and arrays are written `{}` and `[]`.
std::string from_json(const json::Value& v);

/// A place in a text: 1-based line and column (in characters).
struct Position {
  std::size_t line = 0;
  std::size_t column = 0;
};

/// Where the field at `path` is written in the `document`-th document of `text` (0-based, counted as to_json counts
/// them: empty documents are not counted): the position of its key for a member of a mapping, of the item for a list
/// entry. `path` is written as findings name fields: members joined by dots, list indexes and keys with dots in
/// brackets ("spec.workerGroups[0].resources.limits[nvidia.com/gpu]"). A field that is not written (a missing required
/// field, a path of a generated object) is told at its nearest written parent, up to the document's root. nullopt when
/// the text has no such document or a syntax error comes before the field is found. Content reached through an alias or
/// a `<<` merge key is not followed (the alias itself is the nearest parent). Reads only the events up to the field
/// found.
std::optional<Position> locate(std::string_view text, std::size_t document, std::string_view path);

}  // namespace cfo::yaml
