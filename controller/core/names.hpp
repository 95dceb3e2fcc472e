#pragma once
// Name and label grammars of k8s.io/apimachinery/pkg/util/validation (validation.go).
// Each function returns an empty vector when `value` is valid, else one message per violation,
// worded as apimachinery words them.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cfo::names {

constexpr std::size_t kDNS1123LabelMaxLength = 63;
constexpr std::size_t kDNS1123SubdomainMaxLength = 253;
constexpr std::size_t kDNS1035LabelMaxLength = 63;
constexpr std::size_t kLabelValueMaxLength = 63;
constexpr std::size_t kQualifiedNameMaxLength = 63;
/// Total size of all annotation keys and values of one object (apimachinery TotalAnnotationSizeLimitB).
constexpr std::size_t kTotalAnnotationSizeLimitBytes = std::size_t{256} * 1024;

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63 characters (IsDNS1123Label).
std::vector<std::string> dns1123_label(std::string_view value);
/// Dot-separated DNS-1123 labels, at most 253 characters (IsDNS1123Subdomain).
std::vector<std::string> dns1123_subdomain(std::string_view value);
/// `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63 characters (IsDNS1035Label).
std::vector<std::string> dns1035_label(std::string_view value);
/// `[prefix/]name` with a DNS-1123 subdomain prefix and a name of at most 63 characters (IsQualifiedName).
std::vector<std::string> qualified_name(std::string_view value);
/// Empty, or at most 63 characters of `(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?` (IsValidLabelValue).
std::vector<std::string> label_value(std::string_view value);

}  // namespace cfo::names
