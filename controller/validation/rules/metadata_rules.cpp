// Object metadata, as the kube-apiserver checks it for every object.
// Sources: k8s.io/apimachinery pkg/api/validation/objectmeta.go (ValidateObjectMeta, ValidateAnnotations),
// pkg/apis/meta/v1/validation (ValidateLabels, ValidateLabelSelector), pkg/util/validation/validation.go (the
// grammars), and apiextensions-apiserver pkg/apiserver/schema/objectmeta (embedded resources). A CRD's schema
// declares `metadata` only as `type: object`, so none of this is covered by SchemaSet.
#include <algorithm>
#include <cctype>
#include <set>

#include "core/names.hpp"
#include "validation/rules/rule_util.hpp"
#include "validation/schema_formats.hpp"
#include "validation/rules/rules.hpp"

namespace cfo::validation::rules {

namespace {

constexpr std::string_view kObjectMeta = "apimachinery:ObjectMeta";
constexpr std::string_view kEmbedded = "apiextensions:EmbeddedResource";

std::string joined(const std::vector<std::string>& msgs) {
  std::string s;
  for (const auto& m : msgs) s += (s.empty() ? "" : "; ") + m;
  return s;
}

// apimachinery ObjectMeta: the fields a client may send, and their JSON types. Anything else is an unknown field
// (fieldValidation=Strict rejects it, the default drops it with a warning).
void ObjectMetaShape(const json::Value& meta, const Sink& sink) {
  static const std::set<std::string, std::less<>> kStringFields = {
      "name", "generateName",    "namespace",         "selfLink",
      "uid",  "resourceVersion", "creationTimestamp", "deletionTimestamp"};
  static const std::set<std::string, std::less<>> kOtherFields = {
      "generation",   "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers",
      "managedFields"};
  for (auto it = meta.MemberBegin(); it != meta.MemberEnd(); ++it) {
    const std::string key = text(it->name);
    const std::string path = key_path("metadata", key);
    const json::Value& v = it->value;
    if (kStringFields.contains(key)) {
      if (!v.IsString() && !v.IsNull())
        sink.error(path, "schema:type", kObjectMeta, std::string("must be a string, found ") + json::type_name(v));
    } else if (key == "labels" || key == "annotations") {
      if (v.IsNull()) continue;
      if (!v.IsObject()) {
        sink.error(path, "schema:type", kObjectMeta,
                   std::string("must be a map of strings, found ") + json::type_name(v));
        continue;
      }
      for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m)
        if (!m->value.IsString())
          sink.error(key_path(path, text(m->name)), "schema:type", kObjectMeta,
                     std::string("must be a string, found ") + json::type_name(m->value) + " " + brief(m->value));
    } else if (key == "finalizers") {
      if (!v.IsArray() && !v.IsNull())
        sink.error(path, "schema:type", kObjectMeta,
                   std::string("must be a list of strings, found ") + json::type_name(v));
    } else if (!kOtherFields.contains(key)) {
      sink.error(path, "schema:unknownField", kObjectMeta, "field " + dq(key) + " is not part of ObjectMeta");
    }
  }
}

// apimachinery ValidateObjectMeta: a create needs metadata.name or metadata.generateName.
void NameRequired(const json::Value* meta, const Sink& sink) {
  const bool has_name = meta && !string_at(*meta, "name").value_or("").empty();
  const bool has_generate = meta && !string_at(*meta, "generateName").value_or("").empty();
  if (!has_name && !has_generate)
    sink.error("metadata.name", "NameRequired", kObjectMeta, "either name or generateName must be set");
}

// apiextensions customresource validator (NameIsDNSSubdomain): a custom resource's name is a DNS-1123 subdomain.
void DNS1123SubdomainName(const json::Value& meta, const Sink& sink) {
  auto name = string_at(meta, "name");
  if (!name || name->empty()) return;
  if (auto msgs = names::dns1123_subdomain(*name); !msgs.empty())
    sink.error("metadata.name", "DNS1123SubdomainName", kObjectMeta, "name " + dq(*name) + " " + joined(msgs));
}

// apimachinery ValidateObjectMeta: a non-empty generateName is checked as a name prefix, even when a name is set
// (a trailing '-' is allowed: it is read as a letter, maskTrailingDash).
void GenerateName(const json::Value& meta, const Sink& sink) {
  auto prefix = string_at(meta, "generateName");
  if (!prefix || prefix->empty()) return;
  std::string masked = *prefix;
  if (masked.size() > 1 && masked.back() == '-') masked.back() = 'a';
  if (auto msgs = names::dns1123_subdomain(masked); !msgs.empty())
    sink.error("metadata.generateName", "GenerateName", kObjectMeta,
               "generateName " + dq(*prefix) + " is not a valid name prefix: " + joined(msgs));
}

// apimachinery ValidateFinalizers: each finalizer is a qualified name ("example.com/cleanup"); "orphan" and
// "foregroundDeletion" exclude each other.
void Finalizers(const json::Value& meta, const Sink& sink) {
  const json::Value* list = member(meta, "finalizers");
  if (!list || !list->IsArray()) return;
  bool orphan = false, foreground = false;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const json::Value& f = (*list)[i];
    const std::string path = index_path("metadata.finalizers", i);
    if (!f.IsString()) {
      sink.error(path, "schema:type", kObjectMeta, std::string("must be a string, found ") + json::type_name(f));
      continue;
    }
    const std::string name = text(f);
    orphan = orphan || name == "orphan";
    foreground = foreground || name == "foregroundDeletion";
    if (auto msgs = names::qualified_name(name); !msgs.empty())
      sink.error(path, "Finalizers", kObjectMeta, "finalizer " + dq(name) + ": " + joined(msgs));
  }
  if (orphan && foreground)
    sink.error("metadata.finalizers", "Finalizers", kObjectMeta,
               "\"orphan\" and \"foregroundDeletion\" cannot both be set");
}

// apimachinery ValidateOwnerReferences: each reference names apiVersion, kind, name and uid; at most one is the
// controller.
void OwnerReferences(const json::Value& meta, const Sink& sink) {
  const json::Value* refs = member(meta, "ownerReferences");
  if (!refs || refs->IsNull()) return;
  if (!refs->IsArray()) {
    sink.error("metadata.ownerReferences", "schema:type", kObjectMeta,
               std::string("must be a list, found ") + json::type_name(*refs));
    return;
  }
  int controllers = 0;
  for (rapidjson::SizeType i = 0; i < refs->Size(); ++i) {
    const json::Value& r = (*refs)[i];
    const std::string path = index_path("metadata.ownerReferences", i);
    if (!r.IsObject()) {
      sink.error(path, "schema:type", kObjectMeta, std::string("must be a map, found ") + json::type_name(r));
      continue;
    }
    for (const char* key : {"apiVersion", "kind", "name", "uid"}) {
      const json::Value* v = member(r, key);
      if (!v || !v->IsString() || v->GetStringLength() == 0)
        sink.error(key_path(path, key), "OwnerReferences", kObjectMeta,
                   v && !v->IsString() && !v->IsNull() ? std::string("must be a string, found ") + json::type_name(*v)
                                                       : std::string("must not be empty"));
    }
    const json::Value* controller = member(r, "controller");
    if (controller && controller->IsBool() && controller->GetBool()) ++controllers;
  }
  if (controllers > 1)
    sink.error("metadata.ownerReferences", "OwnerReferences", kObjectMeta,
               "only one reference can have controller set to true, found " + std::to_string(controllers));
}

// metav1.Time: creationTimestamp and deletionTimestamp are decoded with Go's RFC 3339 parser, which refuses what it
// cannot read (kubectl stops there; the server cannot decode the object).
void Timestamps(const json::Value& meta, const Sink& sink) {
  for (const char* key : {"creationTimestamp", "deletionTimestamp"}) {
    auto t = string_at(meta, key);
    if (t && !t->empty() && !structural::is_go_rfc3339(*t))
      sink.error(key_path("metadata", key), "schema:format", kObjectMeta,
                 "value " + dq(*t) + " is not an RFC 3339 time Go can decode (e.g. \"2024-05-01T12:00:00Z\")");
  }
}

// apimachinery ValidateObjectMeta (ValidateNamespaceName): a namespace is a DNS-1123 label.
void DNS1123LabelNamespace(const json::Value& meta, const Sink& sink) {
  auto ns = string_at(meta, "namespace");
  if (!ns || ns->empty()) return;
  if (auto msgs = names::dns1123_label(*ns); !msgs.empty())
    sink.error("metadata.namespace", "DNS1123LabelNamespace", kObjectMeta, "namespace " + dq(*ns) + " " + joined(msgs));
}

// apiserver: a cluster-scoped object has no namespace; a namespace in the manifest is ignored.
void ClusterScopedNamespace(const json::Value& meta, const Sink& sink) {
  auto ns = string_at(meta, "namespace");
  if (ns && !ns->empty())
    sink.warn("metadata.namespace", "ClusterScopedNamespace", kObjectMeta,
              "the kind is cluster-scoped; namespace " + dq(*ns) + " is ignored");
}

// apimachinery ValidateAnnotations: keys are qualified names (checked lower-cased).
void AnnotationKey(const json::Value& annotations, const Sink& sink) {
  for (auto it = annotations.MemberBegin(); it != annotations.MemberEnd(); ++it) {
    std::string key = text(it->name);
    std::string lower = key;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (auto msgs = names::qualified_name(lower); !msgs.empty())
      sink.error(key_path("metadata.annotations", key), "AnnotationKey", kObjectMeta,
                 "annotation key " + dq(key) + " is not a qualified name: " + joined(msgs));
  }
}

// apimachinery ValidateAnnotationsSize: keys and values together stay within 256 KiB.
void AnnotationsTotalSize(const json::Value& annotations, const Sink& sink) {
  std::size_t total = 0;
  for (auto it = annotations.MemberBegin(); it != annotations.MemberEnd(); ++it)
    total += it->name.GetStringLength() + (it->value.IsString() ? it->value.GetStringLength() : 0);
  if (total > names::kTotalAnnotationSizeLimitBytes)
    sink.error("metadata.annotations", "AnnotationsTotalSize", kObjectMeta,
               "annotations take " + std::to_string(total) + " bytes; at most " +
                   std::to_string(names::kTotalAnnotationSizeLimitBytes) + " are allowed");
}

// apimachinery ValidateLabels: keys are qualified names.
void LabelKey(const json::Value& labels, const std::string& path, std::string_view source, const Sink& sink) {
  for (auto it = labels.MemberBegin(); it != labels.MemberEnd(); ++it)
    if (auto msgs = names::qualified_name(text(it->name)); !msgs.empty())
      sink.error(key_path(path, text(it->name)), "LabelKey", source,
                 "label key " + dq(text(it->name)) + " is not a qualified name: " + joined(msgs));
}

// apimachinery ValidateLabels: values are label values (at most 63 characters).
void LabelValue(const json::Value& labels, const std::string& path, std::string_view source, const Sink& sink) {
  for (auto it = labels.MemberBegin(); it != labels.MemberEnd(); ++it) {
    if (!it->value.IsString()) continue;
    if (auto msgs = names::label_value(text(it->value)); !msgs.empty())
      sink.error(key_path(path, text(it->name)), "LabelValue", source,
                 "label value " + dq(text(it->value)) + " " + joined(msgs));
  }
}

// apiextensions validateEmbeddedResource: apiVersion is required and parses as group/version.
void EmbeddedAPIVersion(const json::Value& obj, const Sink& sink) {
  const json::Value* v = member(obj, "apiVersion");
  if (!v || !v->IsString() || v->GetStringLength() == 0) {
    sink.error("apiVersion", "EmbeddedAPIVersion", kEmbedded, "an embedded object needs an apiVersion");
    return;
  }
  std::string av = text(*v);
  auto slash = av.find('/');
  bool ok = av.find('/', slash == std::string::npos ? 0 : slash + 1) == std::string::npos;
  if (slash != std::string::npos) ok = ok && slash > 0 && slash + 1 < av.size();
  if (!ok)
    sink.error("apiVersion", "EmbeddedAPIVersion", kEmbedded, "apiVersion " + dq(av) + " is not <group>/<version>");
}

// apiextensions validateEmbeddedResource: kind is required and, lower-cased, a DNS-1035 label.
void EmbeddedKind(const json::Value& obj, const Sink& sink) {
  const json::Value* v = member(obj, "kind");
  if (!v || !v->IsString() || v->GetStringLength() == 0) {
    sink.error("kind", "EmbeddedKind", kEmbedded, "an embedded object needs a kind");
    return;
  }
  std::string lower = text(*v);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (auto msgs = names::dns1035_label(lower); !msgs.empty())
    sink.error("kind", "EmbeddedKind", kEmbedded, "kind " + dq(text(*v)) + " is not a valid kind: " + joined(msgs));
}

// apimachinery ValidateLabelSelector (metav1 validation): requirement keys, operators and values.
void LabelSelector(const json::Value& selector, const std::string& path, std::string_view source, const Sink& sink) {
  if (!selector.IsObject()) return;
  if (const json::Value* exprs = array_at(selector, "matchExpressions")) {
    for (rapidjson::SizeType i = 0; i < exprs->Size(); ++i) {
      const json::Value& e = (*exprs)[i];
      const std::string at = index_path(key_path(path, "matchExpressions"), i);
      if (!e.IsObject()) continue;
      const std::string op = string_at(e, "operator").value_or("");
      const json::Value* values = array_at(e, "values");
      const std::size_t n = values ? values->Size() : 0;
      if (op == "In" || op == "NotIn") {
        if (n == 0) sink.error(at + ".values", "LabelSelector", source, "operator " + op + " needs at least one value");
      } else if (op == "Exists" || op == "DoesNotExist") {
        if (n > 0) sink.error(at + ".values", "LabelSelector", source, "operator " + op + " takes no values");
      } else {
        sink.error(at + ".operator", "LabelSelector", source,
                   "operator " + dq(op) + " is not one of In, NotIn, Exists, DoesNotExist");
      }
      if (auto key = string_at(e, "key"))
        if (auto msgs = names::qualified_name(*key); !msgs.empty())
          sink.error(at + ".key", "LabelSelector", source,
                     "key " + dq(*key) + " is not a qualified name: " + joined(msgs));
      if (values)
        for (rapidjson::SizeType j = 0; j < values->Size(); ++j)
          if (auto msgs = names::label_value(text((*values)[j])); !msgs.empty())
            sink.error(index_path(at + ".values", j), "LabelSelector", source,
                       "value " + dq(text((*values)[j])) + " " + joined(msgs));
    }
  }
}

}  // namespace

void validate_label_map(const json::Value& labels, const std::string& path, std::string_view source, const Sink& sink) {
  if (!labels.IsObject()) return;
  LabelKey(labels, path, source, sink);
  LabelValue(labels, path, source, sink);
}

void validate_label_selector(const json::Value& selector, const std::string& path, std::string_view source,
                             const Sink& sink) {
  if (const json::Value* ml = object_at(selector, "matchLabels"))
    validate_label_map(*ml, key_path(path, "matchLabels"), source, sink);
  LabelSelector(selector, path, source, sink);
}

void validate_object_meta(const Scope& scope, const json::Value& obj, const Sink& sink) {
  const json::Value* meta = member(obj, "metadata");
  if (meta && !meta->IsObject() && !meta->IsNull()) {
    sink.error("metadata", "schema:type", kObjectMeta, std::string("must be a map, found ") + json::type_name(*meta));
    return;
  }
  if (meta && meta->IsNull()) meta = nullptr;
  NameRequired(meta, sink);
  if (!meta) return;
  ObjectMetaShape(*meta, sink);
  DNS1123SubdomainName(*meta, sink);
  GenerateName(*meta, sink);
  Finalizers(*meta, sink);
  OwnerReferences(*meta, sink);
  Timestamps(*meta, sink);
  const std::string api_version = string_at(obj, "apiVersion").value_or("");
  const std::string kind = string_at(obj, "kind").value_or("");
  if (scope.in_appwrapper() || scope.schemas.namespaced(api_version, kind))
    DNS1123LabelNamespace(*meta, sink);
  else
    ClusterScopedNamespace(*meta, sink);
  if (const json::Value* labels = object_at(*meta, "labels"))
    validate_label_map(*labels, "metadata.labels", kObjectMeta, sink);
  if (const json::Value* annotations = object_at(*meta, "annotations")) {
    AnnotationKey(*annotations, sink);
    AnnotationsTotalSize(*annotations, sink);
  }
}

void validate_embedded_type_meta(const json::Value& obj, const Sink& sink) {
  EmbeddedAPIVersion(obj, sink);
  EmbeddedKind(obj, sink);
}

}  // namespace cfo::validation::rules
