#pragma once
// How findings are printed by `validate` and `render`: one line each in text, or a JSON array.
#include <ostream>
#include <string>

#include "cmd/input_files.hpp"
#include "core/field_error.hpp"

namespace cfo::cmd {

/// Describes an entry for messages: "RayCluster team-a/demo" (kind, namespace/name), or its position ("document 2",
/// "whole file") when it has no kind. An object taken out of a v1 List also names its position:
/// "RayCluster team-a/demo (document 0, item 1)".
std::string describe_object(const InputDocument& in);

/// One line per finding: `<file>[:<line>:<column>]: <Kind ns/name>: <error|warning>: <path>: <reason> [<rule>,
/// <source>]`, the line and column (1-based) those of the field's key in the file when it is written there (as in
/// the JSON output), with control characters escaped (as \n, \t, \xNN) so that every finding stays on one line.
void print_findings_text(std::ostream& out, const InputDocument& in, const FieldErrors& errs);

/// Appends one JSON object per finding to `arr`: {file, document, apiVersion, kind, namespace, name, path, rule,
/// source, reason, severity}. `document` is the 0-based document index (null for a whole-file finding such as a YAML
/// syntax error); an object taken out of a v1 List also has `item`, its position in the List as a string ("1", or
/// "1.0" for a List inside a List).
void append_findings_json(json::Value& arr, json::Allocator& a, const InputDocument& in, const FieldErrors& errs);

/// The rule and source of the entry that reports a skipped object.
inline constexpr const char* kSkippedRule = "skipped:unknownGroup";
inline constexpr const char* kSkippedSource = "validate";

/// One line for an object that is not checked: `<file>: skipped: <apiVersion> <Kind ns/name> (<reason>)`.
void print_skipped_text(std::ostream& out, const InputDocument& in, const std::string& reason);

/// Appends the JSON entry of an object that is not checked: the fields of a finding, with path "", rule
/// "skipped:unknownGroup", severity "info" and `"skipped": true`.
void append_skipped_json(json::Value& arr, json::Allocator& a, const InputDocument& in, const std::string& reason);

}  // namespace cfo::cmd
